// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

extension EncryptedFileStore {
    /// The vault file's directory: every process that opens this vault shares it.
    public var lockDirectory: String? { FileOperations.directory(of: path) }

    /// The vault file's lock (``lockPath``), waited for at most ``lockTimeout``; a wait that
    /// gives up carries the remedy ``VaultError/Remedy/waitLonger``.
    func takeLock() throws(VaultError) -> FileLock {
        do {
            return try FileLock(path: lockPath, timeout: lockTimeout)
        } catch {
            guard case .lockTimeout = error else { throw error }
            throw error.with(.waitLonger)
        }
    }
}
