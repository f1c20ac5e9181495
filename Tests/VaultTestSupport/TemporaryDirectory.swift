// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation

/// Private (0700) temporary directories for tests, made with `mkdtemp` under
/// `NSTemporaryDirectory()`.
public enum TemporaryDirectory {
    /// Makes a fresh 0700 directory `TMP/PREFIX-XXXXXX` and returns its path; the caller
    /// removes it (`remove(_:)`), e.g. in a suite's `deinit`.
    public static func make(prefix: String) throws -> String {
        let parent = NSTemporaryDirectory().hasSuffix("/") ? NSTemporaryDirectory() : NSTemporaryDirectory() + "/"
        var template = Array("\(parent)\(prefix)-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TemporaryDirectoryError(prefix: prefix, code: errno) }
        return String(cString: made)
    }

    /// Removes `path` and everything below it (nothing happens when it is gone).
    public static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// `mkdtemp` failed.
public struct TemporaryDirectoryError: Error, CustomStringConvertible {
    public let prefix: String
    public let code: Int32
    public var description: String { "mkdtemp for \(prefix) failed: \(String(cString: strerror(code)))" }
}

/// Runs `body` with a fresh 0700 temporary directory, which is removed before this
/// returns, also when `body` throws.
public func withTemporaryDirectory<T>(_ prefix: String = "vault-test", _ body: (String) throws -> T) throws -> T {
    let path = try TemporaryDirectory.make(prefix: prefix)
    defer { TemporaryDirectory.remove(path) }
    return try body(path)
}

/// Runs `body` with a fresh 0700 temporary directory, which is removed before this
/// returns, also when `body` throws.
public func withTemporaryDirectory<T>(_ prefix: String = "vault-test", _ body: (String) async throws -> T) async throws -> T {
    let path = try TemporaryDirectory.make(prefix: prefix)
    defer { TemporaryDirectory.remove(path) }
    return try await body(path)
}
