// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Gives back the pages of the agent's own program file that starting touched.
///
/// Start-up (argument parsing, configuration, opening the vault with scrypt, binding the
/// socket and the bus) runs code that an agent at rest never runs again, and the kernel
/// keeps every page it touched resident, 64 KiB around each (fault-around): most of an
/// idle agent's resident memory. Once the agent serves, ``release()`` asks the kernel to
/// reclaim the program file's private mappings (`madvise(MADV_PAGEOUT)`, Linux 5.4): pages
/// still as in the file are dropped and come back on first use, from the page cache or
/// the file; pages the process wrote stay (they would go to swap, contents kept). Pages
/// another process maps too are left alone by the kernel, and locked memory
/// (``MemoryHardening``) is not reclaimed. Docs: docs/agent.md, "Memory".
package enum StartupPages {
    /// `MADV_PAGEOUT` (`<linux/mman.h>`), not in every libc's headers.
    static let pageOut: Int32 = 21

    /// One mapping of the program file that ``release()`` advises.
    package struct Mapping: Equatable, Sendable {
        package var start: UInt
        package var end: UInt
    }

    /// The private mappings (code, constants, data) of the program file in `/proc/self/maps`.
    package static func programMappings() -> [Mapping] {
        guard let program = resolvedPath("/proc/self/exe"), let maps = try? readFile("/proc/self/maps") else { return [] }
        return mappings(in: maps, program: program)
    }

    /// The private mappings of `program` (`r-xp`, `r--p`, `rw-p`) in a `/proc/PID/maps` text.
    package static func mappings(in maps: String, program: String) -> [Mapping] {
        maps.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, ["r-xp", "r--p", "rw-p"].contains(fields[1]),
                fields[5].trimmingPrefix(while: { $0 == " " }) == program
            else { return nil }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16), start < end
            else { return nil }
            return Mapping(start: start, end: end)
        }
    }

    /// Advises the kernel to reclaim the program file's pages; the bytes advised
    /// (0 when the kernel refused: before Linux 5.4, or no mapping found).
    @discardableResult
    package static func release() -> Int {
        var advised = 0
        for mapping in programMappings() {
            guard let address = UnsafeMutableRawPointer(bitPattern: mapping.start) else { continue }
            let length = Int(mapping.end - mapping.start)
            if madvise(address, length, pageOut) == 0 { advised += length }
        }
        return advised
    }

    private static func resolvedPath(_ link: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(link, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The whole text of a small file of `/proc` (its size reads as 0, so read to the end).
    private static func readFile(_ path: String) throws -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw StartupPagesError() }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count < 16 << 20 {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

private struct StartupPagesError: Error {}
