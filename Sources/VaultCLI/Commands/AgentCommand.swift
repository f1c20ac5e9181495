// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import Logging
import VaultAgent
import VaultAgentProtocol
import VaultAuth
import VaultHTTPClient
import VaultSecretService
import VaultStore
import VaultStoreCLI

#if canImport(Glibc)
    import Glibc
#endif

struct AgentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Keep accounts logged in and serve their tokens over a socket (runs in the foreground).",
        usage: "vault agent [--account <server> <account>]... [--keep-alive <duration>]\n"
            + "  [--token-file <path>=<account>@<server>]... [--secret-service]\n  [<options>]",
        discussion: """
            The agent refreshes every logged-in account (or those named with --account) ahead \
            of its access token's expiry and before its refresh token's idle window ends, and \
            answers vault token, request, exec and load over a Unix socket that only this user \
            may use: $VAULT_AGENT_SOCKET, else $XDG_RUNTIME_DIR/vault/agent.sock (directory \
            0700, socket 0600; /tmp/vault-agent-UID/agent.sock without XDG_RUNTIME_DIR). \
            Under systemd (vault-agent.service, vault-agent.socket) it takes the socket \
            systemd passes and reports readiness and its watchdog. SIGTERM or SIGINT stops it \
            cleanly. With --secret-service it also serves org.freedesktop.secrets on the \
            session bus from the encrypted vault file (docs/headless-secret-service.md). \
            Exit 4 when the socket cannot be used (another agent runs there, an unsafe \
            directory) or the bus name is taken; --check exits 0 when an agent answers, else 4.

            \(SharedOptionsTopic.pointer)
            """)

    @Option(
        name: .customLong("account"), parsing: .upToNextOption,
        help: ArgumentHelp("Keep only this account (repeatable); left out, every account logged in.", valueName: "server account"))
    var accountValues: [String] = []

    @Option(
        help: ArgumentHelp(
            "The refresh token's idle window when the provider does not send refresh_expires_in: 90s, 30m, 2h, 1d or seconds.",
            valueName: "duration"))
    var keepAlive: String?

    @Option(
        help: ArgumentHelp(
            "Keep a file (0600, replaced atomically) holding the account's current access token (repeatable).",
            valueName: "path=account@server"))
    var tokenFile: [String] = []

    @Flag(help: "Only ask whether an agent answers on the socket: print its version and exit 0, else exit 4.")
    var check = false

    @Flag(
        help: ArgumentHelp(
            "Also serve org.freedesktop.secrets on the session bus from the encrypted vault file, for every libsecret program."))
    var secretService = false

    @OptionGroup(title: "Store options", visibility: .hidden) var backendChoice: BackendChoice
    @OptionGroup(title: "Store options", visibility: .hidden) var passphraseOption: PassphraseFileOption
    @OptionGroup(title: "Store options", visibility: .hidden) var keyCacheOption: KeyCacheOption
    @OptionGroup(title: "Keyring options", visibility: .hidden) var keyringOptions: KeyringPromptOptions
    @OptionGroup(title: "etcd options", visibility: .hidden) var etcdOptions: EtcdOptions
    var store: StoreOptions { StoreOptions(backendChoice, passphraseOption, keyCacheOption, keyringOptions, etcdOptions) }

    mutating func validate() throws {
        try store.validate()
        _ = try AgentArguments.accounts(accountValues)
        if let keepAlive { _ = try AgentArguments.keepAlive(keepAlive) }
        for binding in tokenFile { _ = try AgentArguments.tokenFile(binding) }
    }

    func run() async throws {
        let variables = store.variables
        if check { return try Self.check(AgentVariables.listenPath(variables)) }
        let activated: Int32?
        do throws(AgentSocketError) {
            activated = try SocketActivation.take()
        } catch {
            Terminal.note(error.description, priority: .error)
            throw ExitCode(ExitStatus.unavailable)
        }
        let notifier = SystemdNotifier.take()
        if let ignored = notifier.ignoredSocket {
            Terminal.note(
                "NOTIFY_SOCKET '\(TextEscaping.escaped(ignored))' is neither a socket path nor @name that fits a socket address; no sd_notify")
        }
        var logger = Logger(label: "vault.agent")
        // Without -v: the start line, the changes the user should hear of (a lock, a logout,
        // an account that needs a person) and the failures; -v adds every refresh.
        logger.logLevel = store.verbose ? .info : .notice
        let listener: AgentSocketServer.Listener
        var ownSocket: String?
        if let activated {
            listener = .activated(descriptor: activated)
        } else {
            let path = AgentVariables.listenPath(variables)
            do throws(AgentSocketError) {
                try AgentSocketPlace.prepare(path)
            } catch {
                Terminal.note(error.description + Self.fallbackHint(error, variables), priority: .error)
                throw ExitCode(ExitStatus.unavailable)
            }
            listener = .path(path)
            ownSocket = path
        }
        let transport = AsyncHTTPTransport(connectTimeout: .seconds(AuthOptions.defaultRequestTimeout))
        let failure: ExitCode?
        do {
            let agent = Agent(configuration: try makeConfiguration(transport: transport, logger: logger))
            let server = try await AgentSocketServer.bind(listener, serving: agent, logger: logger)
            let provider = secretService ? SecretServiceProvider(backing: AgentVaultBacking(agent: agent), logger: logger) : nil
            let signalled = await AgentDaemon.run(agent: agent, server: server, notifier: notifier, ownSocket: ownSocket, logger: logger) {
                guard let provider else { return true }
                return await Self.start(provider)
            }
            await provider?.stop()
            failure = signalled ? nil : ExitCode(ExitStatus.unavailable)
        } catch let error as AgentSocketError {
            Terminal.note(error.description, priority: .error)
            failure = ExitCode(ExitStatus.unavailable)
        } catch let error as ExitCode {
            failure = error
        }
        // The HTTP client must be shut down before it goes (AsyncHTTPClient's rule).
        await transport.shutdown(waitingAtMost: .seconds(2))
        if let failure { throw failure }
    }

    /// What to do when the fallback place under the shared `/tmp` is not usable (another
    /// user made `/tmp/vault-agent-UID` first, or put something there): its name is
    /// predictable, so only a place of the user's own avoids it. Empty otherwise.
    static func fallbackHint(_ error: AgentSocketError, _ variables: [String: String]) -> String {
        let runtime = variables["XDG_RUNTIME_DIR"] ?? ""
        let chosen = variables["VAULT_AGENT_SOCKET"] ?? ""
        guard runtime.isEmpty || !runtime.hasPrefix("/"), chosen.isEmpty else { return "" }
        switch error {
        case .unsafeDirectory, .occupied:
            return "; set XDG_RUNTIME_DIR (or VAULT_AGENT_SOCKET) to a directory only you can change"
        default: return ""
        }
    }

    /// Claims org.freedesktop.secrets; says so, or why not (the daemon then stops, exit 4).
    static func start(_ provider: SecretServiceProvider) async -> Bool {
        do throws(SecretServiceProvider.StartError) {
            try await provider.start()
            Terminal.note("serving org.freedesktop.secrets on the session bus")
            // The bus gone (a dbus-run-session ended), the agent stops as on SIGTERM, as
            // gnome-keyring-daemon does: it would otherwise outlive the session it served.
            Task {
                guard await provider.waitUntilBusCloses() else { return }
                Terminal.note("the session bus closed: stopping")
                kill(getpid(), SIGTERM)
            }
            return true
        } catch {
            Terminal.note(error.description, priority: .error)
            return false
        }
    }

    /// `--secret-service` serves the encrypted file: `auto` means the file (no probe of a
    /// bus this agent is about to serve), any other backend is a usage error.
    static func servingFile(_ options: inout StoreConfiguration) throws(ExitCode) {
        var requested = options.backend
        do throws(VaultError) {
            if requested == nil { requested = try StoreVariables.backend(options.variables) }
        } catch {
            Terminal.note(error.worded, priority: .error)
            throw ExitCode(ExitStatus.of(error))
        }
        switch requested {
        case nil, .auto?, .file?: options.backend = .file
        case let other?:
            Terminal.note("--secret-service serves the encrypted file, not the \(other.rawValue) backend; use --backend file", priority: .error)
            throw ExitCode(ExitStatus.usage)
        }
    }

    /// `--check`: the agent's version line and exit 0, or one line and exit 4.
    static func check(_ path: String) throws {
        switch AgentClient.ask(.ping, socketPath: path, timeout: .seconds(5)) {
        case .success(.done(let fields)):
            guard let reply = AgentPingReply(fields: fields) else {
                Terminal.note("the agent at \(path) answered the ping malformed", priority: .error)
                throw ExitCode(ExitStatus.unavailable)
            }
            Terminal.print(TextEscaping.escaped(reply.versionLine))
        case .success(.declined(let reason)):
            Terminal.note("the agent at \(path) declined the ping: \(reason)", priority: .error)
            throw ExitCode(ExitStatus.unavailable)
        case .failure(let failure):
            Terminal.note("no agent answers at \(path): \(failure)", priority: .error)
            throw ExitCode(ExitStatus.unavailable)
        }
    }

    /// What a token file must never replace: the vault file and its lock, the passphrase
    /// files, etcd's password, CA, certificate and key files, the agent's socket; nothing in
    /// the lock directories (the user's, `VAULT_LOCK_DIR`); no lock file beside the vault file.
    static func ownPlaces(_ options: StoreConfiguration) -> TokenFilePlace.OwnPlaces {
        let variables = options.variables
        let vault = options.fileConfiguration.path
        var files: [(what: String, path: String)] = [
            ("the vault file", vault), ("the vault file's lock", vault + ".lock"),
            ("the agent's socket", AgentVariables.listenPath(variables)),
        ]
        for file in [options.passphraseFile, variables["VAULT_PASSPHRASE_FILE"], variables["VAULT_NEW_PASSPHRASE_FILE"]] {
            if let file { files.append(("a passphrase file", file)) }
        }
        if let credentials = options.locations.credentialsDirectory {
            files.append(("the systemd credential of the passphrase", credentials + "/vault-passphrase"))
        }
        let etcd: [(String, String?, String)] = [
            ("etcd's password file", options.etcdPasswordFile, "VAULT_ETCD_PASSWORD_FILE"),
            ("etcd's CA file", options.etcdCacert, "VAULT_ETCD_CACERT"),
            ("etcd's client certificate", options.etcdCert, "VAULT_ETCD_CERT"),
            ("etcd's client key", options.etcdKey, "VAULT_ETCD_KEY"),
        ]
        for (what, option, variable) in etcd {
            for file in [option, variables[variable]] {
                if let file { files.append((what, file)) }
            }
        }
        // Any agent's socket of this user, not only this one's: a token renamed over another
        // agent's socket leaves that agent unreachable by lock and logout (attack review 48).
        for place in AgentNotice.socketPlaces(variables) { files.append(("an agent's socket", place)) }
        var directories = [("vault's lock directory", RefreshLock.perUserDirectory(environment: variables))]
        if let chosen = variables["VAULT_LOCK_DIR"], !chosen.isEmpty { directories.append(("vault's lock directory (VAULT_LOCK_DIR)", chosen)) }
        let vaultName = String(vault.split(separator: "/").last ?? "")
        return TokenFilePlace.OwnPlaces(
            files: files, directories: directories, lockFileDirectories: [(TokenFilePlace.directory(of: vault), vaultName)])
    }

    /// Why `bindings` name one file twice (the same path once its directory's links are
    /// resolved): two accounts would take turns in it.
    static func repeatedTokenFile(_ bindings: [TokenFileBinding]) -> String? {
        var seen: [String: TokenFileBinding] = [:]
        for binding in bindings {
            let place = TokenFilePlace.resolved(binding.path)
            if let first = seen[place] {
                return "the token file \(TextEscaping.escaped(binding.path)) is given twice (also as \(TextEscaping.escaped(first.path)))"
            }
            seen[place] = binding
        }
        return nil
    }

    /// The lease of an agent that was not given its passphrase: its key came from the key
    /// cache (or a prompt that put it there), so it holds it only while the cache does (a
    /// short `VAULT_KEY_CACHE_TTL`, or `vault lock` from anywhere, still ends it).
    static let keyCacheLease: @Sendable (any SecureStore) -> Bool = { store in
        guard let file = store as? EncryptedFileStore, let holds = (try? file.cacheHoldsKey()) ?? nil else { return true }
        return holds
    }

    /// What the agent runs with: the store the options select, sign-in settings as the
    /// commands' (`AuthOptions.withSession`), the accounts, keep-alive and token files.
    func makeConfiguration(transport: AsyncHTTPTransport, logger: Logger) throws(ExitCode) -> AgentConfiguration {
        var chosen = store.configuration
        if secretService { try Self.servingFile(&chosen) }
        let options = chosen
        var keyCacheOnly = options
        keyCacheOnly.keyCacheOnly = true
        // Tried every few seconds while the vault is locked: without -v's notices (the
        // backend, the key cache), which would repeat each time; the agent logs the unlock.
        keyCacheOnly.verbose = false
        let afterLock = keyCacheOnly
        // Each exchange within the agent's answer deadline, so a hanging provider holds the
        // account's refresh lock (which a falling-back command waits for) no longer.
        let requestTimeout = Duration.seconds(10)
        var requester = Requester.Configuration(requestTimeout: requestTimeout)
        let coolDown: Double
        do throws(VaultError) {
            requester.lock = try LockDirectorySettings.placement(for: options.decision().kind, options.variables)
            coolDown = try ReauthenticationSettings.coolDown(options.variables)
        } catch {
            Terminal.note(error.worded, priority: .error)
            throw ExitCode(ExitStatus.of(error))
        }
        let accounts: [KeptAccount]
        let keepAlive: Duration?
        let tokenFiles: [TokenFileBinding]
        do throws(ValidationError) {
            // Checked by validate() already.
            accounts = try AgentArguments.accounts(accountValues)
            keepAlive = try self.keepAlive.map(AgentArguments.keepAlive)
            tokenFiles = try tokenFile.map(AgentArguments.tokenFile)
        } catch {
            Terminal.note(error.message, priority: .error)
            throw ExitCode(ExitStatus.usage)
        }
        if let repeated = Self.repeatedTokenFile(tokenFiles) {
            Terminal.note("\(repeated); give each file once", priority: .error)
            throw ExitCode(ExitStatus.usage)
        }
        let own = Self.ownPlaces(options)
        for binding in tokenFiles {
            let path = TextEscaping.escaped(binding.path)
            // The temporary file beside it is ".NAME.vault-" and 16 hex digits: it must fit NAME_MAX.
            if binding.path.split(separator: "/").last.map({ $0.utf8.count > TokenFilePlace.longestName }) ?? false {
                Terminal.note("refusing the token file \(path): its name is longer than \(TokenFilePlace.longestName) bytes", priority: .error)
                throw ExitCode(ExitStatus.usage)
            }
            if let reason = TokenFilePlace.ownFile(binding.path, among: own) {
                Terminal.note("refusing the token file \(path): \(TextEscaping.escaped(reason)); choose a file of its own", priority: .error)
                throw ExitCode(ExitStatus.usage)
            }
            if let unsafe = TokenFilePlace.unsafe(binding.path) {
                Terminal.note(
                    "refusing the token file \(path): \(TextEscaping.escaped(unsafe)); choose a directory only you can change", priority: .error)
                throw ExitCode(ExitStatus.unavailable)
            }
            if let occupied = TokenFilePlace.occupied(binding.path) {
                Terminal.note("refusing the token file \(path): \(TextEscaping.escaped(occupied)); choose a file of its own", priority: .error)
                throw ExitCode(ExitStatus.usage)
            }
        }
        var configuration = AgentConfiguration(
            storeKey: options.agentStoreKey,
            openStore: { (afterLockKeys: Bool) throws(VaultError) -> any SecureStore in
                try (afterLockKeys ? afterLock : options).openStore()
            },
            requester: requester, reauthentication: .init(coolDown: coolDown),
            transport: transport,
            accounts: accounts.isEmpty ? nil : accounts, keepAlive: keepAlive, tokenFiles: tokenFiles, logger: logger,
            keyLease: AgentAccess.passphraseGiven(options) ? nil : Self.keyCacheLease)
        configuration.tokenFileOwnPlaces = own
        if let decided = try? options.decision() { configuration.otherStoreKeys = [options.decidedStoreKey(decided.kind)] }
        return configuration
    }
}
