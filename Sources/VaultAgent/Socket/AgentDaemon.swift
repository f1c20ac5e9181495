// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Logging
import VaultAgentProtocol
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

    /// Runs `agent` behind `server` until SIGTERM or SIGINT; then stops accepting, lets
    /// answers under way finish (bounded), stops the agent, removes `ownSocket` (the socket
    /// file this process bound, never an activated one) and returns: the process exits 0.
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
        let place = ownSocket ?? "the socket systemd passed"
        let starting = Task {
            await agent.start()
            guard !Task.isCancelled else { return }
            guard await afterStart() else {
                startFailed.record()
                server.stop()
                return
            }
            var status = "serving at \(place)"
            notifier.ready(status: status)
            logger.info("serving at \(place)")
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
        let stop = await withTaskGroup(of: Int32?.self) { group in
            group.addTask { await signals.next() }
            group.addTask {
                await serving.value
                return nil
            }
            let first = await group.next() ?? nil
            if let number = first {
                logger.info("\(StopSignals.name(number)): stopping")
            } else if !startFailed.recorded {
                logger.error("the listening socket closed: stopping")
            }
            notifier.stopping(status: "stopping")
            // No new connection; the wait on the server ends once those open are done.
            server.stop()
            group.cancelAll()
            return first
        }
        starting.cancel()
        // The server closes what is still open at its drain bound; past this bound too
        // (a connection its bounds missed) the agent stops anyway: after a SIGTERM no
        // refresh timer may outlive the wait, and the process exits.
        if !(await Agent.finishes(within: serverStopBound, { await serving.value })) {
            logger.warning("stopping with \(server.openConnections) connection(s) still open after \(serverStopBound)")
        }
        await agent.stop()
        watchdog.cancel()
        if let ownSocket { unlink(ownSocket) }
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
