// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import FoundationEssentials
import VaultStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reads input that a user or another program supplies, never more than a limit: a
/// runaway pipe or a huge file is refused with `.invalidInput` instead of filling memory.
package enum BoundedRead {
    /// Everything `fd` delivers until end of input, or until `complete(bytes, newFrom)` says
    /// the bytes read so far (the new ones start at `newFrom`) are a whole message; throws
    /// when it exceeds `limit` bytes, or when `within` is given and the input has not ended
    /// by then (a writer that never closes its end).
    package static func all(
        fd: Int32, limit: Int, what: String, within: Duration? = nil, until complete: ([UInt8], Int) -> Bool = { _, _ in false }
    ) throws(VaultError) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = within.map { ContinuousClock.now + $0 }
        while true {
            if let deadline, let within {
                try waitForInput(fd: fd, until: deadline, what: what, within: within)
            }
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n < 0 { throw .invalidInput("cannot read \(what): \(String(cString: strerror(errno)))") }
            if n == 0 { return bytes }
            guard bytes.count + n <= limit else { throw .invalidInput("\(what) holds more than \(limit >> 20) MiB") }
            let newFrom = bytes.count
            bytes.append(contentsOf: buffer[0..<n])
            if complete(bytes, newFrom) { return bytes }
        }
    }

    /// Waits until `fd` can be read (data, end of input or an error), at most until `deadline`.
    private static func waitForInput(fd: Int32, until deadline: ContinuousClock.Instant, what: String, within: Duration) throws(VaultError) {
        while true {
            let left = deadline - ContinuousClock.now
            let milliseconds = Int32(clamping: max(0, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0, errno == EINTR { continue }
            if ready < 0 { throw .invalidInput("cannot read \(what): \(String(cString: strerror(errno)))") }
            throw .invalidInput("\(what) did not end within \(within.components.seconds) s (is its writer still open?)")
        }
    }

    /// The contents of the file at `path` (a regular file, or a pipe such as `<(cmd)`).
    package static func file(_ path: String, limit: Int) throws(VaultError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .invalidInput("cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { throw .invalidInput("\(path) is a directory") }
        return try all(fd: fd, limit: limit, what: path)
    }
}
