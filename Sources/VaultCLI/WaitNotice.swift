// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import HTTPTypes
import VaultAuth
import VaultStore
import VaultStoreCLI
import VaultSync

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A transport that tells a person at a terminal what vault waits for: when an exchange
/// takes longer than ``delay`` (2 s) and standard error is a terminal, it says once per
/// host, on stderr, `vault: waiting for auth.example.com…`. Never when stderr is not a
/// terminal (a pipe, a log, cron), and nothing else changes: the exchange, its deadline
/// and its result are the wrapped transport's.
struct WaitNoticeTransport: HTTPTransport {
    /// How long an exchange runs before the notice.
    static let delay: Duration = .seconds(2)

    let base: any HTTPTransport
    /// The hosts already named.
    private let said = NamedHosts()
    private let enabled: Bool

    /// Wraps `base`; the notice is on only when stderr is a terminal now.
    init(_ base: any HTTPTransport) {
        self.base = base
        self.enabled = isatty(STDERR_FILENO) == 1
    }

    func send(_ request: HTTPRequest, body: [UInt8]?, timeout: Duration) async throws(AuthError) -> (response: HTTPResponse, body: [UInt8]) {
        guard enabled else { return try await base.send(request, body: body, timeout: timeout) }
        let host = request.url?.host ?? "the server"
        let notice = Task { [said] in
            try? await Task.sleep(for: Self.delay)
            guard !Task.isCancelled, said.hosts.withLock({ $0.insert(host).inserted }) else { return }
            Terminal.note("waiting for \(TextEscaping.escaped(host))…")
        }
        defer { notice.cancel() }
        return try await base.send(request, body: body, timeout: timeout)
    }
}

/// The hosts a ``WaitNoticeTransport`` has named, shared by its copies.
private final class NamedHosts: Sendable {
    let hosts = Locked<Set<String>>([])
}
