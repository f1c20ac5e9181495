// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultAgentProtocol
import VaultSync

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
    /// How many `READY=1` or `STOPPING=1` wait for room: while one does, `WATCHDOG=1` is
    /// not sent, so each place the reader frees goes to the waiting message (the queue is
    /// full of pings the manager has not read yet anyway).
    private let essentialWaiting = Locked(0)
    /// A `NOTIFY_SOCKET` that was set but cannot be used (neither `/path` nor `@name`, or too
    /// long for a socket address): nothing is sent, and the agent says so.
    public let ignoredSocket: String?

    public init(socketPath: String?, watchdogInterval: Duration?, ignoredSocket: String? = nil) {
        self.socketPath = socketPath
        self.watchdogInterval = watchdogInterval
        self.ignoredSocket = ignoredSocket
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
            // Half the watchdog's period, but never under 50 ms: WATCHDOG_USEC=1 made the
            // pings a busy loop that filled the manager's queue (attack review 39).
            interval = max(.microseconds(Int64(clamping: microseconds / 2)), minimumWatchdogInterval)
        }
        let usable = socket.flatMap { address(of: $0) == nil ? nil : $0 }
        return SystemdNotifier(
            socketPath: usable, watchdogInterval: usable == nil ? nil : interval, ignoredSocket: usable == nil ? socket : nil)
    }

    /// The socket address `NOTIFY_SOCKET` names: a path, or `@name` in the abstract namespace.
    static func address(of socketPath: String) -> UnixSocketAddress? {
        if socketPath.hasPrefix("@") { return UnixSocketAddress(abstractName: Array(socketPath.utf8.dropFirst())) }
        return socketPath.hasPrefix("/") ? UnixSocketAddress(path: socketPath) : nil
    }

    /// The shortest interval between two `WATCHDOG=1`, whatever `WATCHDOG_USEC` says.
    public static let minimumWatchdogInterval: Duration = .milliseconds(50)

    /// How long `READY=1` and `STOPPING=1` wait for room in the manager's full queue.
    public static let essentialWait: Duration = .seconds(5)

    /// `READY=1` with a status line. Never dropped: waits for room (``essentialWait``).
    public func ready(status: String) async { await sendWaitingForRoom("READY=1\nSTATUS=\(oneLine(status))") }
    /// A new status line; dropped when the manager's queue is full.
    public func status(_ text: String) { send("STATUS=\(oneLine(text))") }
    /// `WATCHDOG=1`: still alive; dropped when the manager's queue is full (the next one
    /// follows at the watchdog's half-interval), and not sent while `READY=1` or
    /// `STOPPING=1` waits for room.
    public func watchdog() {
        guard essentialWaiting.withLock({ $0 }) == 0 else { return }
        send("WATCHDOG=1")
    }
    /// `STOPPING=1` with a status line. Never dropped: waits for room (``essentialWait``).
    public func stopping(status: String) async { await sendWaitingForRoom("STOPPING=1\nSTATUS=\(oneLine(status))") }

    private func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }

    /// What one datagram's send came to.
    enum Delivery: Equatable {
        /// The manager's queue took it.
        case sent
        /// The manager's queue is full (it has not read for a while): try again later.
        case full
        /// No manager, or the send failed otherwise: trying again would not help.
        case failed
    }

    /// Sends `message` until the manager's queue takes it, for at most `bound`, suspending
    /// (never blocking a thread) between tries. For the messages the manager acts on
    /// (`READY=1` starts dependent units, `STOPPING=1` tells a stop from a crash), which
    /// must not be lost to a queue filled by `WATCHDOG=1` while the reader was slow. Gives
    /// up when the task is cancelled.
    func sendWaitingForRoom(_ message: String, bound: Duration = essentialWait) async {
        guard attempt(message) == .full else { return }
        essentialWaiting.withLock { $0 += 1 }
        defer { essentialWaiting.withLock { $0 -= 1 } }
        let clock = ContinuousClock()
        let deadline = clock.now + bound
        repeat {
            try? await Task.sleep(for: .milliseconds(10))
        } while attempt(message) == .full && clock.now < deadline && !Task.isCancelled
    }

    /// Sends `message` once; dropped when the manager's queue is full.
    func send(_ message: String) { _ = attempt(message) }

    /// Sends `message` as one datagram, never waiting in `sendto` (a blocked send starved
    /// the concurrency pool, and a SIGTERM then never stopped the agent).
    func attempt(_ message: String) -> Delivery {
        guard let socketPath, let address = Self.address(of: socketPath) else { return .failed }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return .failed }
        defer { close(descriptor) }
        let payload = Array(message.utf8)
        let sent = address.withSocketAddress { socketAddress, length in
            payload.withUnsafeBytes { sendto(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT), socketAddress, length) }
        }
        if sent >= 0 { return .sent }
        return errno == EAGAIN || errno == EWOULDBLOCK ? .full : .failed
    }
}
