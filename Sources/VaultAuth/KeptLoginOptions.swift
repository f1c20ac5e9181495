// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// The options an account's last `vault login` was given (resolved: its grant, never a
/// default left implicit), kept in its ``LoginSettings`` so that `vault login SERVER
/// ACCOUNT` signs in the same way again, as `gh auth refresh` does; options given then
/// override these and are kept in turn.
///
/// It holds no secret: of the client secret only the file it was read from (never `-`,
/// standard input), read again at the next login, so a rotated secret is picked up. An
/// OpenID Connect account keeps its issuer, not the endpoints discovery found: they are
/// discovered again, unless they were given as options.
public struct KeptLoginOptions: Sendable, Equatable, Codable {
    /// `--provider`.
    public var provider: LoginSettings.ProviderKind
    /// `--issuer`.
    public var issuer: String?
    /// `--authorization-url`.
    public var authorizationURL: String?
    /// `--token-url`.
    public var tokenURL: String?
    /// `--device-url`.
    public var deviceURL: String?
    /// `--revocation-url`.
    public var revocationURL: String?
    /// `--client-id`.
    public var clientID: String?
    /// `--client-secret-file`: a path, never `-`.
    public var clientSecretFile: String?
    /// `--client-auth`.
    public var clientAuthentication: LoginSettings.ClientAuthentication?
    /// The grant the login used (`--grant`, `--device`, or the provider's default).
    public var grant: LoginSettings.Grant?
    /// `--scope`, as given (nil: the provider's default).
    public var scope: String?
    /// `--redirect-uri`.
    public var redirectURI: String?
    /// `--team-id` (Sign in with Apple).
    public var teamID: String?
    /// `--key-id` (Sign in with Apple).
    public var keyID: String?
    /// `--apple-url` (Sign in with Apple).
    public var appleURL: String?

    /// Options of a login with `provider`; the others are set one by one.
    public init(provider: LoginSettings.ProviderKind) {
        self.provider = provider
    }

    /// What a login kept by an older vault (settings without these options) was given, as
    /// far as its settings tell: an OpenID Connect account's issuer but not its discovered
    /// endpoints; an OAuth 2.0 account's endpoints. Its client secret was kept, not its file.
    public init(derivedFrom settings: LoginSettings) {
        provider = settings.provider
        switch settings.provider {
        case .reference:
            return
        case .oidc:
            issuer = settings.issuer
        case .oauth2:
            authorizationURL = settings.authorizationURL
            tokenURL = settings.tokenURL
            deviceURL = settings.deviceURL
            revocationURL = settings.revocationURL
        case .apple:
            teamID = settings.apple?.teamID
            keyID = settings.apple?.keyID
            appleURL = settings.apple?.baseURL
            clientID = settings.clientID
            return
        }
        clientID = settings.clientID
        clientAuthentication = settings.clientAuthentication
        grant = settings.grant
        scope = settings.scope
        redirectURI = settings.redirectURI
    }
}

extension LoginSettings {
    /// The options to sign in with again: those kept, else those an older vault's settings imply.
    public var loginOptionsToReuse: KeptLoginOptions { loginOptions ?? KeptLoginOptions(derivedFrom: self) }
}
