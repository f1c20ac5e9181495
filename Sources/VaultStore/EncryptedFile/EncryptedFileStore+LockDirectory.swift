// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

extension EncryptedFileStore {
    /// The vault file's directory: every process that opens this vault shares it.
    public var lockDirectory: String? { FileOperations.directory(of: path) }
}
