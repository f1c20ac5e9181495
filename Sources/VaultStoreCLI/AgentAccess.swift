// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultAgentProtocol
import VaultStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Whether and where a command asks `vault agent`, and the `-v` lines that say which path
/// served. The one rule every command follows:
///
/// - Never with `VAULT_AGENT=off`, and never when no socket file is there (one `stat`, no
///   `connect`): see ``AgentVariables/socketPath(_:)``.
/// - A command that could serve from the agent (`token`, `load`, `request`, `exec --token`)
///   asks only when no passphrase source is given (`--passphrase-file`,
///   `VAULT_PASSPHRASE_FILE`, `VAULT_PASSPHRASE`, a `vault-passphrase` systemd credential)
///   and without `--no-key-cache`: a given passphrase keeps meaning something, checked by
///   the command itself. Nor when a store variable is invalid: the command reports it.
/// - Any failure or a `declined` answer: the command does the work itself, with the same
///   output and exit code as without an agent; with `-v`, one line says why.
package struct AgentAccess: Sendable {
    /// The agent's socket, which exists.
    package let socketPath: String
    /// Whether the `-v` lines are written.
    package let verbose: Bool

    /// The deadline of a `token` or `load` request (the agent answers within 10 s or declines).
    package static let servingTimeout: Duration = .seconds(15)
    /// The deadline of a `status`, `lock` or `ping` request.
    package static let shortTimeout: Duration = .seconds(5)

    package init(socketPath: String, verbose: Bool) {
        self.socketPath = socketPath
        self.verbose = verbose
    }

    /// The agent that may serve a command with `configuration`'s store options, or nil
    /// when it must not be asked (the rules above).
    package static func forServing(_ configuration: StoreConfiguration) -> AgentAccess? {
        let variables = configuration.variables
        guard !configuration.noKeyCache, !passphraseGiven(configuration), storeVariablesAreValid(variables) else { return nil }
        return forAsking(variables, verbose: configuration.verbose)
    }

    /// The agent that may be asked about its state (`status`, `lock`), whatever the
    /// passphrase sources: nil with `VAULT_AGENT=off` or no socket file.
    package static func forAsking(_ variables: [String: String], verbose: Bool) -> AgentAccess? {
        guard let path = AgentVariables.socketPath(variables), isSocket(path) else { return nil }
        return AgentAccess(socketPath: path, verbose: verbose)
    }

    /// True when a passphrase source is given (its systemd credential only when the file is there).
    package static func passphraseGiven(_ configuration: StoreConfiguration) -> Bool {
        let given = StoreVariables.givenPassphrases(
            file: configuration.passphraseFile, configuration.variables, locations: configuration.locations)
        return given.contains { source in
            switch source {
            case .file, .value: true
            case .systemdCredential(let directory): access("\(directory)/vault-passphrase", F_OK) == 0
            }
        }
    }

    /// False when a store variable the command would refuse is set (then the command runs
    /// here, and says so as it does without an agent).
    static func storeVariablesAreValid(_ variables: [String: String]) -> Bool {
        do throws(VaultError) {
            _ = try StoreVariables.backend(variables)
            try StoreVariables.checkLockTimeout(variables)
            _ = try StoreVariables.keyCacheLifetime(variables)
            return true
        } catch {
            return false
        }
    }

    /// True when `path` names a socket (`stat`, nothing more).
    package static func isSocket(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & mode_t(S_IFMT)) == mode_t(S_IFSOCK)
    }

    /// The agent's answer to `request`: the fields of a `done` answer, or nil when it
    /// declined or could not be asked (with `-v`, `agent: <reason>; doing the work here`).
    /// Without `doingTheWorkHere` (a request nothing here can do instead: `lock`, `status`),
    /// the `-v` line is `agent: <reason>`.
    package func ask(_ request: AgentRequest, timeout: Duration, doingTheWorkHere: Bool = true) -> [[UInt8]]? {
        let reason: String
        switch AgentClient.ask(request, socketPath: socketPath, timeout: timeout) {
        case .success(.done(let fields)): return fields
        case .success(.declined(let declined)): reason = declined
        case .failure(let failure): reason = failure.description
        }
        if doingTheWorkHere {
            fellBack(reason)
        } else if verbose {
            Terminal.note("agent: \(reason)")
        }
        return nil
    }

    /// The access token the agent answers to `request` (a `token` request), or nil (with
    /// `-v`, why): the first field of a `done` answer, which must not be empty.
    /// `timeout` bounds the wait (default ``servingTimeout``; a command's `--timeout` may shorten it).
    package func token(_ request: AgentRequest, timeout: Duration = AgentAccess.servingTimeout) -> [UInt8]? {
        guard let fields = ask(request, timeout: timeout) else { return nil }
        guard let token = fields.first, !token.isEmpty else {
            fellBack(AgentClientError.malformed.description)
            return nil
        }
        return token
    }

    /// With `-v`: `agent: served WHAT`.
    package func served(_ what: String) {
        if verbose { Terminal.note("agent: served \(what)") }
    }

    /// With `-v`: `agent: REASON; doing the work here`.
    package func fellBack(_ reason: String) {
        if verbose { Terminal.note("agent: \(reason); doing the work here") }
    }
}
