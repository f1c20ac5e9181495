// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// systemd's socket activation (`sd_listen_fds(3)`): the listening socket a unit's
/// `.socket` passed in, as descriptor 3, when `LISTEN_PID` is this process and
/// `LISTEN_FDS` is at least 1.
public enum SocketActivation {
    /// The first passed descriptor (`SD_LISTEN_FDS_START`).
    public static let firstDescriptor: Int32 = 3

    /// The passed listening socket, or nil when none was passed to this process. Reads and
    /// then unsets `LISTEN_PID`, `LISTEN_FDS` and `LISTEN_FDNAMES`, so no child inherits
    /// them. A passed descriptor that is not a listening Unix stream socket is refused.
    public static func take() throws(AgentSocketError) -> Int32? {
        let pid = environmentValue("LISTEN_PID")
        let count = environmentValue("LISTEN_FDS")
        for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { unsetenv(name) }
        guard let pid, Int32(pid) == getpid(), let count, let descriptors = Int(count), descriptors >= 1 else { return nil }
        let descriptor = firstDescriptor
        // Every passed descriptor closes on exec; only the first is used.
        for extra in descriptor..<(descriptor + Int32(min(descriptors, 64))) { _ = fcntl(extra, F_SETFD, FD_CLOEXEC) }
        guard option(descriptor, SO_DOMAIN) == AF_UNIX, option(descriptor, SO_TYPE) == Int32(SOCK_STREAM.rawValue),
            option(descriptor, SO_ACCEPTCONN) == 1
        else {
            throw .occupied("descriptor 3", reason: "the socket systemd passed is not a listening Unix stream socket")
        }
        return descriptor
    }

    private static func option(_ descriptor: Int32, _ name: Int32) -> Int32? {
        var value: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(descriptor, SOL_SOCKET, name, &value, &size) == 0 ? value : nil
    }

    static func environmentValue(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }
}
