// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Logging
import VaultAgentProtocol
import VaultStore
import VaultSync

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `vault agent`'s life in the foreground: listen, start the agent, tell systemd
/// (``SystemdNotifier``), serve until SIGTERM or SIGINT, then stop cleanly.
public enum AgentDaemon {
    /// How often the `STATUS=` line is brought up to date.
    static let statusInterval: Duration = .seconds(5)

    /// How long a stop waits for the socket server to finish (it closes what is still
    /// open at its own drain bound, 5 s by default) before the agent stops regardless.
    static let serverStopBound: Duration = .seconds(20)

    /// Runs `agent` behind `server` until SIGTERM or SIGINT; then stops accepting and removes
    /// `ownSocket` (the socket file this process bound, never an activated one, and only
    /// while it is still that file), stops the agent (no refresh token is spent after the
    /// signal), lets answers under way finish (bounded) and returns: the process exits 0.
    /// `READY=1` is sent once the agent has started; `WATCHDOG=1` at the notifier's interval.
    /// `afterStart` runs once the agent has started, before `READY=1` (another service the
    /// process offers: the Secret Service); when it returns false (it has said why) the
    /// daemon stops at once. Returns true when a signal stopped it, false when the
    /// listening socket failed or `afterStart` did (then it stops the same way).
    @discardableResult
    public static func run(
        agent: Agent, server: AgentSocketServer, notifier: SystemdNotifier, ownSocket: String?, logger: Logger,
        afterStart: @escaping @Sendable () async -> Bool = { true }
    ) async -> Bool {
        let startFailed = StartFailure()
        let signals = StopSignals()
        let serving = Task { await server.run() }
        let watchdog = Task {
            guard let interval = notifier.watchdogInterval else { return }
            while !Task.isCancelled {
                notifier.watchdog()
                try? await Task.sleep(for: interval)
            }
        }
        // Escaped: a newline in the path would start another sd_notify assignment
        // (`READY=1`, `STOPPING=1`) in the STATUS= message, and a log line of its own.
        let place = ownSocket.map { TextEscaping.escaped($0) } ?? "the socket systemd passed"
        let starting = Task {
            await agent.start()
            guard !Task.isCancelled else { return }
            guard await afterStart() else {
                startFailed.record()
                server.stop()
                return
            }
            var status = "serving at \(place)"
            await notifier.ready(status: status)
            // Said without -v too: where, which accounts, which files (issue 37).
            logger.notice("\(agent.startLine(serving: place))")
            // Start-up's code is not needed at rest: the kernel may have its pages back.
            let released = StartupPages.release()
            logger.info("advised the kernel to reclaim \(released / 1024) KiB of start-up pages of the program file")
            // STATUS= kept current: the connections open, when that changes.
            guard notifier.socketPath != nil else { return }
            while !Task.isCancelled {
                try? await Task.sleep(for: statusInterval)
                let open = server.openConnections
                let now = "serving at \(place); \(open) connection\(open == 1 ? "" : "s") open"
                if now != status, !Task.isCancelled {
                    notifier.status(now)
                    status = now
                }
            }
        }
        // Whichever comes first, a stop signal or the end of serving. Not a task group: a
        // group waits for all its children, and the wait on `serving` does not end when
        // cancelled, so the agent's stop came only after the server's drain (or never,
        // with a connection the drain missed), its refresh timers running meanwhile.
        let stop: Int32? = await withCheckedContinuation { continuation in
            let answered = Locked(false)
            let answer: @Sendable (Int32?) -> Void = { value in
                let first = answered.withLock { answered in
                    defer { answered = true }
                    return !answered
                }
                if first { continuation.resume(returning: value) }
            }
            Task { answer(await signals.next()) }
            Task {
                await serving.value
                answer(nil)
            }
        }
        if let number = stop {
            logger.info("\(StopSignals.name(number)): stopping")
        } else if !startFailed.recorded {
            logger.error("the listening socket closed: stopping")
        }
        // Sent beside the stop, not before it: STOPPING=1 may wait for room in a full
        // queue (bounded), and the agent must stop at the signal, not after that wait.
        let stopping = Task { await notifier.stopping(status: "stopping") }
        // No new connection; the server drains those open (bounded) and then ends.
        server.stop()
        // The socket file goes once the listener is closed (until then a new agent finds
        // this one alive and stops), and only while it is still the socket this process
        // bound: a new agent may serve at that path as soon as this one stopped listening
        // (attack reviews 39 and 40).
        await server.listenerClosed()
        server.boundFile?.remove()
        starting.cancel()
        // The agent stops first, while the server drains: from the signal on no refresh
        // token is spent (a refresh already sent is stored before `stop` returns), and a
        // client still connected is declined and does the work itself. A client holding
        // its connection open kept the timers refreshing for the drain's 5 s before.
        await agent.stop()
        // The server closes what is still open at its drain bound; past this bound too
        // (a connection its bounds missed) the process goes on to exit.
        if !(await Agent.finishes(within: serverStopBound, { await serving.value })) {
            logger.warning("stopping with \(server.openConnections) connection(s) still open after \(serverStopBound)")
        }
        watchdog.cancel()
        await stopping.value
        logger.info("stopped")
        return stop != nil
    }
}

/// Whether ``AgentDaemon/run(agent:server:notifier:ownSocket:logger:afterStart:)``'s
/// `afterStart` failed.
private final class StartFailure: Sendable {
    private let failed = Locked(false)
    func record() { failed.withLock { $0 = true } }
    var recorded: Bool { failed.withLock { $0 } }
}
