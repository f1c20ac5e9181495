// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultAgentProtocol

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `sd_notify(3)` without libsystemd: datagrams to `NOTIFY_SOCKET` (a path, or `@name` in
/// the abstract namespace) saying `READY=1`, `STATUS=...`, `WATCHDOG=1` and `STOPPING=1`.
/// Without `NOTIFY_SOCKET` every call does nothing.
public struct SystemdNotifier: Sendable {
    /// Where the service manager listens; nil when not run by one.
    public let socketPath: String?
    /// How often to send `WATCHDOG=1` (half of `WATCHDOG_USEC`); nil when no watchdog is
    /// set for this process.
    public let watchdogInterval: Duration?

    public init(socketPath: String?, watchdogInterval: Duration?) {
        self.socketPath = socketPath
        self.watchdogInterval = watchdogInterval
    }

    /// The notifier the environment describes: `NOTIFY_SOCKET`, `WATCHDOG_USEC` (with
    /// `WATCHDOG_PID`, when set, naming this process). Unsets the four variables after
    /// reading them, so no child inherits them.
    public static func take() -> SystemdNotifier {
        let socket = SocketActivation.environmentValue("NOTIFY_SOCKET")
        let microseconds = SocketActivation.environmentValue("WATCHDOG_USEC").flatMap { UInt64($0) }
        let watchdogPID = SocketActivation.environmentValue("WATCHDOG_PID")
        for name in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] { unsetenv(name) }
        var interval: Duration?
        if let microseconds, microseconds > 0, watchdogPID == nil || watchdogPID.flatMap({ Int32($0) }) == getpid() {
            interval = .microseconds(Int64(clamping: microseconds / 2))
        }
        let usable = socket.flatMap { $0.hasPrefix("/") || $0.hasPrefix("@") ? $0 : nil }
        return SystemdNotifier(socketPath: usable, watchdogInterval: usable == nil ? nil : interval)
    }

    /// `READY=1` with a status line.
    public func ready(status: String) { send("READY=1\nSTATUS=\(oneLine(status))") }
    /// A new status line.
    public func status(_ text: String) { send("STATUS=\(oneLine(text))") }
    /// `WATCHDOG=1`: still alive.
    public func watchdog() { send("WATCHDOG=1") }
    /// `STOPPING=1` with a status line.
    public func stopping(status: String) { send("STOPPING=1\nSTATUS=\(oneLine(status))") }

    private func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }

    /// Sends `message` as one datagram, never waiting: a manager whose queue is full (it
    /// stopped reading) drops it, and the agent is not held in `sendto` (a blocked send
    /// starved the concurrency pool, and a SIGTERM then never stopped the agent). Failures
    /// are ignored (the manager may be gone).
    func send(_ message: String) {
        guard let socketPath, socketPath.utf8.count <= AgentSocketPath.maximumLength else { return }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(socketPath.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        // An abstract name's length is exact; a path's includes its terminating zero.
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2
        let length = socklen_t(pathOffset + bytes.count + (bytes.first == 0 ? 0 : 1))
        let payload = Array(message.utf8)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                payload.withUnsafeBytes {
                    sendto(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT), socketAddress, length)
                }
            }
        }
    }
}
