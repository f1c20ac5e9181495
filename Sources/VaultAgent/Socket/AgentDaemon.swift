// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Logging
import VaultAgentProtocol

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `vault agent`'s life in the foreground: listen, start the agent, tell systemd
/// (``SystemdNotifier``), serve until SIGTERM or SIGINT, then stop cleanly.
public enum AgentDaemon {
    /// Runs `agent` behind `server` until SIGTERM or SIGINT; then stops accepting, lets
    /// answers under way finish (bounded), stops the agent, removes `ownSocket` (the socket
    /// file this process bound, never an activated one) and returns: the process exits 0.
    /// `READY=1` is sent once the agent has started; `WATCHDOG=1` at the notifier's interval.
    public static func run(
        agent: Agent, server: AgentSocketServer, notifier: SystemdNotifier, ownSocket: String?, logger: Logger
    ) async {
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
            notifier.ready(status: "serving at \(place)")
            logger.info("serving at \(place)")
        }
        let number = await signals.next()
        logger.info("\(StopSignals.name(number)): stopping")
        starting.cancel()
        notifier.stopping(status: "stopping")
        server.stop()
        await serving.value
        await agent.stop()
        watchdog.cancel()
        if let ownSocket { unlink(ownSocket) }
        logger.info("stopped")
    }
}
