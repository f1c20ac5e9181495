// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import Foundation
import VaultAuth
import VaultStore
import VaultStoreCLI

extension LoginSettings.ProviderKind: ExpressibleByArgument {}
extension LoginSettings.Grant: ExpressibleByArgument {}
extension LoginSettings.ClientAuthentication: ExpressibleByArgument {}

struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Log in once; vault then keeps the account logged in.",
        usage: "vault login <server> <account> [<options>]",
        discussion: """
            With a password (the reference API, or an OAuth 2.0 password grant) the password is \
            read from standard input (a pipe) or asked for on the terminal; vault stores it (the \
            same item `vault save --server URL --account A` writes), the tokens and these login \
            settings, so `vault token` and `vault request` need only the server and account (or \
            nothing, when one account is logged in), and \
            can log in again silently when the refresh token dies. With --grant \
            client-credentials no password is needed.

            With --provider oidc (discovery from --issuer) or --provider oauth2 with \
            --authorization-url, a person signs in through the browser (authorization code with \
            PKCE; a one-time link to vault's loopback listener, which sends the browser on to the \
            provider, is always printed on stderr, and opened with $BROWSER, else xdg-open when \
            there is a display; the listener serves only your own user's processes). With --device, on another device (the code is printed on \
            stderr). Such accounts store no password: when the refresh token dies, run vault \
            login again.

            Each login keeps the options it was given with the account (of the client secret \
            only its file), so vault login SERVER ACCOUNT alone signs in again the same way; \
            options given then override the kept ones and are kept.

              printf %s "$PW" | vault login https://auth.example.com alice
              vault login https://api.example.com svc --provider oauth2 \\
                  --token-url https://auth.example.com/oauth/token --client-id svc \\
                  --client-secret-file /run/secrets/client --grant client-credentials
              vault login https://api.example.com me --provider oidc \\
                  --issuer https://accounts.example.com --client-id my-cli

            With --provider apple (Sign in with Apple, the server's half) the authorization code \
            the app received is read from standard input; the client secret is signed with the \
            key of --private-key-file (or $CREDENTIALS_DIRECTORY/AuthKey_<KEYID>.p8, or the key \
            stored at an earlier sign-in), which is kept in the secure store. --name and --email \
            (given only at a user's first sign-in) are kept until the registration is marked done.

              app-code | vault login https://api.example.com alice --provider apple \\
                  --client-id com.example.app --team-id TEAM --key-id KEY \\
                  --private-key-file AuthKey_KEY.p8 \\
                  --name "Alice Example" --email a@example.com

            \(SharedOptionsTopic.pointer)
            """)

    @Argument(help: ArgumentHelp("The server's base URL and the account; or --server and --account.", valueName: "server account"))
    var names: [String] = []
    @OptionGroup(title: "Sign-in options") var auth: AuthOptions
    @Option(
        help: """
            reference (the reference auth API), oauth2 (endpoints given one by one), oidc (OpenID Connect discovery) or \
            apple (Sign in with Apple: the app's authorization code, read from stdin, exchanged here).
            """)
    var provider: LoginSettings.ProviderKind?
    @Option(help: ArgumentHelp("The OpenID Connect issuer, whose metadata names the endpoints (--provider oidc).", valueName: "url"))
    var issuer: String?
    @Option(help: ArgumentHelp("OAuth 2.0 authorization endpoint (browser sign-in).", valueName: "url"))
    var authorizationURL: String?
    @Option(help: ArgumentHelp("OAuth 2.0 token endpoint.", valueName: "url"))
    var tokenURL: String?
    @Option(help: ArgumentHelp("OAuth 2.0 device authorization endpoint (RFC 8628).", valueName: "url"))
    var deviceURL: String?
    @Option(help: ArgumentHelp("OAuth 2.0 revocation endpoint (RFC 7009), told at logout.", valueName: "url"))
    var revocationURL: String?
    @Option(help: "OAuth 2.0 client id.")
    var clientID: String?
    @Option(help: ArgumentHelp("Read the OAuth 2.0 client secret from this file ('-' for stdin).", valueName: "path"))
    var clientSecretFile: String?
    @Option(help: "How the client authenticates: basic (HTTP Basic, the default) or form.")
    var clientAuth: LoginSettings.ClientAuthentication?
    @Option(
        help: """
            password, client-credentials, authorization-code (browser) or device; default: authorization-code for oidc \
            and for oauth2 with --authorization-url, else password.
            """)
    var grant: LoginSettings.Grant?
    @Flag(help: "Sign in on another device (RFC 8628 device grant) instead of this machine's browser.")
    var device = false
    @Option(
        help: ArgumentHelp(
            "The redirect URI registered with the provider. Browser sign-in: a loopback http URI that vault listens at, such as "
                + "http://127.0.0.1:8400/callback (host 127.0.0.1, [::1] or localhost; default: any free port of 127.0.0.1). "
                + "--provider apple: the one the app's authorization used, if any.", valueName: "uri"))
    var redirectURI: String?
    @Option(help: "OAuth 2.0 scope to request (oidc default: \"openid profile email offline_access\"; oidc always adds openid).")
    var scope: String?
    @OptionGroup var apple: AppleLoginOptions
    @OptionGroup(title: "Store options", visibility: .hidden) var backendChoice: BackendChoice
    @OptionGroup(title: "Store options", visibility: .hidden) var passphraseOption: PassphraseFileOption
    @OptionGroup(title: "Store options", visibility: .hidden) var keyCacheOption: KeyCacheOption
    @OptionGroup(title: "Keyring options", visibility: .hidden) var keyringOptions: KeyringPromptOptions
    @OptionGroup(title: "etcd options", visibility: .hidden) var etcdOptions: EtcdOptions
    var store: StoreOptions { StoreOptions(backendChoice, passphraseOption, keyCacheOption, keyringOptions, etcdOptions) }

    /// The scope an OpenID Connect sign-in asks for unless told.
    static let defaultOpenIDScope = "openid profile email offline_access"

    /// The grant `vault login` uses for these flags.
    var resolvedGrant: LoginSettings.Grant {
        if device { return .device }
        if let grant { return grant }
        if provider == .oidc || (provider == .oauth2 && authorizationURL != nil) { return .authorizationCode }
        return .password
    }

    mutating func validate() throws {
        try store.validate()
        try auth.take(names)
        guard auth.isNamed else {
            throw ValidationError("give the server and the account: vault login URL ACCOUNT, or --server URL --account A")
        }
    }

    func run() async throws {
        try await reportingAuthErrors { () async throws(AuthError) in
            // What the options alone put on stdin is refused before the store may read its
            // passphrase there; what the kept options add, once they are known.
            try checkStandardInput(knowingKeptOptions: false)
            try AuthOptions.checkServer(auth.server, account: auth.account)
            // A secret file given now is read (and refused, if others can read it) first.
            let givenSecret = provider == .apple || apple.isGiven ? nil : try readClientSecret()
            let secureStore = try AuthOptions.openStore(store)
            let items = AccountItems(store: secureStore, server: ServerName.normalized(auth.server), account: auth.account)
            let kept = try await items.loadSettings()
            var command = self
            let reuse = command.adopt(kept)
            try command.checkStandardInput(knowingKeptOptions: true)
            // The stored secret, when no file is named, and only where it went before.
            let keptSecret = reuse?.secretStays == true && command.clientSecretFile == nil ? kept?.clientSecret : nil
            if reuse != nil {
                let words = command.keptOptions.words
                let secret = keptSecret != nil && givenSecret == nil ? " (and the client secret stored at the last login)" : ""
                if !words.isEmpty || !secret.isEmpty { Terminal.note("signing in with the kept options: \(words)\(secret)") }
                if reuse?.secretStays == false && kept?.clientSecret != nil && givenSecret == nil {
                    Terminal.note(
                        "the client secret of the last login is not sent to another endpoint or client id: give --client-secret-file")
                }
            }
            try await command.logIn(secureStore, givenSecret: givenSecret, keptSecret: keptSecret)
        }
    }

    /// Signs in with these options over the opened store. `givenSecret` is the client secret
    /// of `--client-secret-file`, read already; `keptSecret` the one the account's last login
    /// kept, used when no file names one (a kept file is read here).
    private func logIn(_ secureStore: any SecureStore, givenSecret: Secret?, keptSecret: Secret?) async throws(AuthError) {
        let provider = self.provider ?? .reference
        if provider == .apple || apple.isGiven {
            guard provider == .apple else { throw .invalidRequest("--team-id, --key-id and the other Apple options need --provider apple") }
            return try await signInWithApple(secureStore)
        }
        var clientSecret = givenSecret
        if clientSecret == nil { clientSecret = try readClientSecret() }
        if clientSecret == nil && provider != .reference { clientSecret = keptSecret }
        let grant = resolvedGrant
        if provider == .reference && (grant != .password || issuer != nil || authorizationURL != nil) {
            throw .invalidRequest("--issuer, --authorization-url, --device and --grant need --provider oidc or oauth2")
        }
        if device, let grant = self.grant, grant != .device {
            throw .invalidRequest("--device and --grant \(grant.rawValue) contradict each other")
        }
        for url in [tokenURL, authorizationURL, deviceURL, revocationURL, issuer].compactMap({ $0 }) {
            guard let parsed = URL(string: url), parsed.host != nil else { throw .invalidRequest("not a URL: \(URLPolicy.redacted(text: url))") }
            try URLPolicy.check(parsed)
        }
        var settings = LoginSettings(
            provider: provider, serverURL: ServerName.normalized(auth.server), tokenURL: tokenURL,
            clientID: clientID, clientSecret: clientSecret, clientAuthentication: clientAuth ?? .basic,
            grant: provider == .reference ? .password : grant,
            scope: provider == .oidc ? LoginSettings.openIDScope(scope ?? Self.defaultOpenIDScope) : scope)
        settings.authorizationURL = authorizationURL
        settings.deviceURL = deviceURL
        settings.revocationURL = revocationURL
        settings.loginOptions = keptOptions
        if let redirectURI {
            guard grant == .authorizationCode else {
                throw .invalidRequest("--redirect-uri is for a sign-in through the browser (--grant authorization-code), not \(grant.rawValue)")
            }
            _ = try LoopbackRedirect(parsing: redirectURI)
            settings.redirectURI = redirectURI
        }
        if provider == .oidc || settings.isInteractive {
            try await signIn(settings, secureStore)
        } else {
            try await logIn(settings, secureStore)
        }
    }

    /// Refuses (exit 2) a command line on which standard input would carry two things: the
    /// password or Apple's code, `--client-secret-file -`, and the store's secret files named
    /// `-`. Before the kept options are known (`knowingKeptOptions` false) it counts only what
    /// the options given certainly read there: an account kept as a browser or service
    /// account reads no password, and its store's passphrase may come from standard input.
    private func checkStandardInput(knowingKeptOptions: Bool) throws(AuthError) {
        var readers = clientSecretFile == PassphraseSource.standardInputName ? ["--client-secret-file -"] : []
        if provider == .apple || apple.isGiven {
            readers.append("the authorization code")
        } else if provider != .oidc && resolvedGrant == .password && (knowingKeptOptions || provider != nil || grant != nil) {
            readers.append("the password")
        }
        do throws(VaultError) { try store.checkStandardInput(readers) } catch { throw .store(error) }
    }

    /// The password and client-credentials grants, and the reference API.
    private func logIn(_ settings: LoginSettings, _ secureStore: any SecureStore) async throws(AuthError) {
        if provider == .oauth2 && (tokenURL == nil || clientID == nil) {
            throw .invalidRequest("--provider oauth2 needs --token-url and --client-id")
        }
        if settings.grant == .password, clientSecretFile == "-" {
            throw .invalidRequest("stdin cannot carry both the client secret and the password")
        }
        let prompt = "Password for \(auth.account) at \(auth.server): "
        _ = try await auth.withSession(opened: secureStore, store) { session throws(AuthError) in
            // Read within the session: its lock directory is checked before the password is asked.
            var password: Secret?
            if settings.grant == .password {
                do throws(VaultError) {
                    password = try SecretInput.read(prompt: prompt)
                } catch {
                    throw .store(error)
                }
                guard password?.utf8String != nil else { throw .invalidRequest("the password is not UTF-8 text") }
            }
            return try await session.login(settings: settings, password: password)
        }
        Terminal.note("logged in to \(ServerName.normalized(auth.server)) as \(auth.account)")
        tellAgents()
    }

    /// A person signs in: through the browser, or on another device.
    private func signIn(_ requested: LoginSettings, _ secureStore: any SecureStore) async throws(AuthError) {
        let provider = requested.provider
        guard let clientID, !clientID.isEmpty else { throw .invalidRequest("--provider \(provider.rawValue) needs --client-id") }
        if provider == .oidc && issuer == nil { throw .invalidRequest("--provider oidc needs --issuer") }
        if provider == .oauth2 && tokenURL == nil { throw .invalidRequest("--provider oauth2 needs --token-url") }
        if !requested.isInteractive && provider == .oidc {
            throw .invalidRequest("--provider oidc signs in with --grant authorization-code or --device")
        }
        let waitLimit = try auth.validatedTimeout(default: 300)
        let request = OIDCSignInRequest(
            settings: requested, issuer: issuer, waitLimit: waitLimit, boundsDeviceSignIn: auth.timeout != nil,
            presentStartLink: { Self.presentStartLink($0, within: waitLimit) }, pageNames: Self.pageNames, refused: Self.reportRefused,
            presentDeviceCode: Self.presentDeviceCode,
            locked: { Interruption.committing() })
        Interruption.handle("the sign-in")
        // On a terminal, a line every 30 s while the browser sign-in is awaited: a provider
        // that refused the client shows its error in the browser, never here.
        let reminder =
            requested.grant == .authorizationCode && isatty(STDERR_FILENO) == 1
            ? Task { await Self.remind(until: ContinuousClock.now + waitLimit) } : nil
        defer { reminder?.cancel() }
        let tokens = try await auth.withSession(opened: secureStore, store, interactive: true) { session throws(AuthError) -> TokenSet in
            try await session.signIn(with: request)
        }
        let who = tokens.idToken?.utf8String.flatMap(IDTokenClaims.init(storedToken:)).map { " (signed in: \($0.who))" } ?? ""
        Terminal.note("logged in to \(ServerName.normalized(auth.server)) as \(auth.account)\(who)")
        tellAgents()
    }

    /// Every agent of the user drops what it held of the account and takes the new tokens.
    func tellAgents() {
        AgentNotice.accountChanged(server: ServerName.normalized(auth.server), account: auth.account, store.configuration)
    }

    /// How the sign-in pages in the browser name vault and a new sign-in.
    static let pageNames = SignInPageNames(program: "vault", startAgain: "Run vault login again.")

    /// Prints the one-time start link (the browser is sent on from it to the provider), and
    /// how long vault waits for the sign-in.
    @Sendable static func presentStartLink(_ url: URL, within waitLimit: Duration) {
        Terminal.note(
            "to sign in, open this link in a browser; it works once (vault waits \(waitLimit.worded) for the sign-in to come back; "
                + "--timeout changes that, Ctrl-C stops):")
        Terminal.note("  \(url.absoluteString)")
    }

    /// How often a terminal is told that the browser sign-in is still awaited.
    static let reminderInterval: Duration = .seconds(30)

    /// Says every ``reminderInterval`` that the sign-in is still awaited, and for how long,
    /// until `deadline` or until cancelled.
    static func remind(until deadline: ContinuousClock.Instant) async {
        while true {
            do { try await Task.sleep(for: reminderInterval) } catch { return }
            let left = deadline - ContinuousClock.now
            guard left > .seconds(1) else { return }
            Terminal.note("still waiting for the sign-in in the browser (\(left.worded) left; Ctrl-C stops)")
        }
    }

    /// One line for each user whose connections to the sign-in listener were refused.
    @Sendable static func reportRefused(_ connection: RefusedConnection) {
        Terminal.note("refused a connection to the sign-in listener from \(connection)")
    }

    @Sendable static func presentDeviceCode(_ authorization: DeviceAuthorization) {
        Terminal.note("to sign in, open \(authorization.verificationURI) on any device and enter the code \(authorization.userCode)")
        if let complete = authorization.verificationURIComplete { Terminal.note("  (or open \(complete))") }
        Terminal.note("waiting for the sign-in (the code expires in \(Int(authorization.expiresIn)) s; Ctrl-C stops)")
    }

    /// The client secret from `--client-secret-file`, or nil.
    private func readClientSecret() throws(AuthError) -> Secret? {
        guard let clientSecretFile else { return nil }
        do throws(VaultError) {
            let secret =
                clientSecretFile == "-"
                ? try SecretInput.read(prompt: "Client secret: ")
                : try PassphraseSource.readPassphraseFile(clientSecretFile, what: "client secret file")
            guard secret.utf8String != nil else { throw VaultError.invalidInput("the client secret is not UTF-8 text") }
            return secret
        } catch {
            throw .invalidRequest("cannot read the client secret: \(error)")
        }
    }
}
