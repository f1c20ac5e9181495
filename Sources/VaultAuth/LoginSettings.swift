// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultStore

/// How an account logs in, remembered per server and account (a `.settings` item) so
/// that `vault token` and `vault request` need only `--server` and `--account`.
///
/// The OAuth client secret lives here, inside the secure store, never in a plain file.
public struct LoginSettings: Sendable, Equatable, Codable, CustomStringConvertible {
    /// Which kind of auth server the account logs in to; it chooses the ``AuthProvider``
    /// (``AuthSession/provider(for:)``).
    public enum ProviderKind: String, Sendable, Codable, CaseIterable {
        /// The reference API (`/api/login`, `/api/refresh_tokens`).
        case reference
        /// An OAuth 2.0 authorization server (RFC 6749), its endpoints given one by one.
        case oauth2
        /// An OpenID Connect provider: endpoints from its discovery document, ID tokens verified.
        case oidc
        /// Sign in with Apple's server side: an app's authorization code exchanged with a client
        /// secret signed by the developer's key (``AppleSettings``), ID tokens verified.
        case apple
    }

    /// How an ``ProviderKind/oauth2`` account obtains tokens; the reference API always logs in with the password.
    public enum Grant: String, Sendable, Codable, CaseIterable {
        /// Resource-owner password grant: logs in with the account's stored password.
        case password
        /// Client-credentials grant: a service account, authenticated by the client secret.
        case clientCredentials = "client-credentials"
        /// Authorization code with PKCE through the browser (RFC 6749 §4.1, RFC 7636): a person
        /// signs in; when the refresh token dies, only another `vault login` helps.
        case authorizationCode = "authorization-code"
        /// Device authorization grant (RFC 8628): a person signs in on another device.
        case device
    }

    /// How an ``ProviderKind/oauth2`` client presents its id and secret to the token endpoint.
    public enum ClientAuthentication: String, Sendable, Codable, CaseIterable {
        /// HTTP Basic with the client id and secret (RFC 6749 §2.3.1, preferred).
        case basic
        /// `client_id` and `client_secret` in the form body.
        case form
    }

    /// Which provider logs the account in (default ``ProviderKind/reference``).
    public var provider: ProviderKind
    /// The server URL as given to `vault login`, normalised.
    public var serverURL: String
    /// The OAuth token endpoint (`--token-url`); required for ``ProviderKind/oauth2``, unused otherwise.
    public var tokenURL: String?
    /// The OAuth client id (`--client-id`); required for ``ProviderKind/oauth2``, unused otherwise.
    public var clientID: String?
    /// The OAuth client secret: a `Secret`, so `print`, `dump` and logs never show it.
    public var clientSecret: Secret?
    /// How the client id and secret are sent (default ``ClientAuthentication/basic``); OAuth only.
    public var clientAuthentication: ClientAuthentication
    /// The OAuth grant (default ``Grant/password``); OAuth only.
    public var grant: Grant
    /// The OAuth `scope` sent with each login (not with refreshes); nil sends none.
    public var scope: String?
    /// The OpenID Connect issuer (`--issuer`); ID tokens must name it in `iss`.
    public var issuer: String?
    /// The authorization endpoint, for ``Grant/authorizationCode``.
    public var authorizationURL: String?
    /// The device authorization endpoint (RFC 8628), for ``Grant/device``.
    public var deviceURL: String?
    /// The revocation endpoint (RFC 7009) `vault logout` tells; nil: logout is local only.
    public var revocationURL: String?
    /// The provider's JWKS (`jwks_uri`), which ID tokens are verified against.
    public var jwksURL: String?
    /// The OpenID Connect end-session endpoint (RP-initiated logout).
    public var endSessionURL: String?
    /// The loopback redirect URI of a browser sign-in, as registered with the provider
    /// (``LoopbackRedirect``, `--redirect-uri`); nil: `http://127.0.0.1:PORT/callback` at a
    /// port the system picks.
    public var redirectURI: String?
    /// Sign in with Apple's team, key and endpoints (``ProviderKind/apple`` only).
    public var apple: AppleSettings?
    /// The name and e-mail address of a first Sign in with Apple, kept until the caller marks
    /// the registration done (``AuthSession/markRegistered()``).
    public var pendingProfile: PendingProfile?
    /// The options the last `vault login` was given, which `vault login SERVER ACCOUNT`
    /// reuses (nil: settings an older vault kept; ``loginOptionsToReuse``).
    public var loginOptions: KeptLoginOptions?
    /// The stored credentials a silent login saw rejected, remembered by ``SilentReauthenticator``
    /// (a salted fingerprint, never the password); part of the settings so that every write
    /// of the item keeps it.
    var rejection: CredentialRejection?

    /// True when ID tokens are expected and checked (a `nonce` is sent with a browser sign-in and
    /// must come back): an issuer is known, and the provider is ``ProviderKind/oidc`` or the scope
    /// has `openid`.
    public var isOpenIDConnect: Bool {
        issuer != nil && (provider == .oidc || Self.scopeNames(scope).contains("openid"))
    }

    /// `scope` with `openid` in front when it lacks it (OpenID Connect Core §3.1.2.1: without it
    /// the provider sends no ID token, and the nonce would go unchecked).
    public static func openIDScope(_ scope: String) -> String {
        scopeNames(scope).contains("openid") ? scope : (["openid"] + scopeNames(scope)).joined(separator: " ")
    }

    private static func scopeNames(_ scope: String?) -> [String] {
        (scope ?? "").split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    }

    /// True for the grants only a person can complete (browser, device): a dead refresh
    /// token then means ``AuthError/interactionRequired(_:)``.
    public var isInteractive: Bool { grant == .authorizationCode || grant == .device }

    /// Creates settings; every parameter but `serverURL` has the documented default. Nothing is checked
    /// here: ``AuthSession/provider(for:)`` and the providers reject unusable settings.
    public init(
        provider: ProviderKind = .reference, serverURL: String, tokenURL: String? = nil, clientID: String? = nil,
        clientSecret: Secret? = nil, clientAuthentication: ClientAuthentication = .basic, grant: Grant = .password,
        scope: String? = nil
    ) {
        self.provider = provider
        self.serverURL = serverURL
        self.tokenURL = tokenURL
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.clientAuthentication = clientAuthentication
        self.grant = grant
        self.scope = scope
    }

    /// A one-line summary for messages; the client secret shows as `<redacted>` (or `none`), never its value.
    public var description: String {
        "LoginSettings(provider: \(provider.rawValue), server: \(serverURL), tokenURL: \(tokenURL ?? "-"), "
            + "clientID: \(clientID ?? "-"), clientSecret: \(clientSecret == nil ? "none" : "<redacted>"), grant: \(grant.rawValue))"
    }

    private enum CodingKeys: String, CodingKey {
        /// The keys of the stored JSON document, one per property.
        case provider, serverURL, tokenURL, clientID, clientSecret, clientAuthentication, grant, scope
        case issuer, authorizationURL, deviceURL, revocationURL, jwksURL, endSessionURL, redirectURI
        case apple, pendingProfile, rejection, loginOptions
    }

    /// The stored form keeps the client secret as a string (the whole document is the
    /// secret of a `.settings` item, inside the secure store).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(provider, forKey: .provider)
        try container.encode(serverURL, forKey: .serverURL)
        try container.encodeIfPresent(tokenURL, forKey: .tokenURL)
        try container.encodeIfPresent(clientID, forKey: .clientID)
        try container.encodeIfPresent(clientSecret?.utf8String, forKey: .clientSecret)
        try container.encode(clientAuthentication, forKey: .clientAuthentication)
        try container.encode(grant, forKey: .grant)
        try container.encodeIfPresent(scope, forKey: .scope)
        try container.encodeIfPresent(issuer, forKey: .issuer)
        try container.encodeIfPresent(authorizationURL, forKey: .authorizationURL)
        try container.encodeIfPresent(deviceURL, forKey: .deviceURL)
        try container.encodeIfPresent(revocationURL, forKey: .revocationURL)
        try container.encodeIfPresent(jwksURL, forKey: .jwksURL)
        try container.encodeIfPresent(endSessionURL, forKey: .endSessionURL)
        try container.encodeIfPresent(redirectURI, forKey: .redirectURI)
        try container.encodeIfPresent(apple, forKey: .apple)
        try container.encodeIfPresent(pendingProfile, forKey: .pendingProfile)
        try container.encodeIfPresent(rejection, forKey: .rejection)
        try container.encodeIfPresent(loginOptions, forKey: .loginOptions)
    }

    /// Decodes the stored form, wrapping the client secret in a `Secret` again; throws `DecodingError` when
    /// a required key is missing or a value is unknown.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        provider = try container.decode(ProviderKind.self, forKey: .provider)
        serverURL = try container.decode(String.self, forKey: .serverURL)
        tokenURL = try container.decodeIfPresent(String.self, forKey: .tokenURL)
        clientID = try container.decodeIfPresent(String.self, forKey: .clientID)
        clientSecret = try container.decodeIfPresent(String.self, forKey: .clientSecret).map { Secret($0) }
        clientAuthentication = try container.decode(ClientAuthentication.self, forKey: .clientAuthentication)
        grant = try container.decode(Grant.self, forKey: .grant)
        scope = try container.decodeIfPresent(String.self, forKey: .scope)
        issuer = try container.decodeIfPresent(String.self, forKey: .issuer)
        authorizationURL = try container.decodeIfPresent(String.self, forKey: .authorizationURL)
        deviceURL = try container.decodeIfPresent(String.self, forKey: .deviceURL)
        revocationURL = try container.decodeIfPresent(String.self, forKey: .revocationURL)
        jwksURL = try container.decodeIfPresent(String.self, forKey: .jwksURL)
        endSessionURL = try container.decodeIfPresent(String.self, forKey: .endSessionURL)
        redirectURI = try container.decodeIfPresent(String.self, forKey: .redirectURI)
        apple = try container.decodeIfPresent(AppleSettings.self, forKey: .apple)
        pendingProfile = try container.decodeIfPresent(PendingProfile.self, forKey: .pendingProfile)
        // A rejection that cannot be read is forgotten, not a reason to lose the settings.
        rejection = (try? container.decodeIfPresent(CredentialRejection.self, forKey: .rejection)) ?? nil
        // So are options that cannot be read: the next login is then told them again.
        loginOptions = (try? container.decodeIfPresent(KeptLoginOptions.self, forKey: .loginOptions)) ?? nil
    }

    /// Settings for a Sign in with Apple account of `serverURL` (the app's own API): Apple's
    /// token (`/auth/token`), key (`/auth/keys`) and revocation (`/auth/revoke`) endpoints under
    /// `apple.baseURL`, which is also the ID tokens' issuer; the client authenticates with form
    /// fields, and only the app can bring a new authorization code.
    public static func apple(serverURL: String, clientID: String, apple: AppleSettings) -> LoginSettings {
        var settings = LoginSettings(
            provider: .apple, serverURL: serverURL, tokenURL: apple.baseURL + "/auth/token", clientID: clientID,
            clientAuthentication: .form, grant: .authorizationCode)
        settings.issuer = apple.baseURL
        settings.jwksURL = apple.baseURL + "/auth/keys"
        settings.revocationURL = apple.baseURL + "/auth/revoke"
        settings.apple = apple
        return settings
    }

    /// These settings with the issuer and JWKS `metadata` names, and its endpoints where these
    /// settings have none of their own (endpoints given explicitly win over discovery).
    public func adopting(_ metadata: ProviderMetadata) -> LoginSettings {
        var copy = self
        copy.issuer = metadata.issuer
        copy.jwksURL = metadata.jwksURI
        copy.tokenURL = tokenURL ?? metadata.tokenEndpoint
        copy.authorizationURL = authorizationURL ?? metadata.authorizationEndpoint
        copy.deviceURL = deviceURL ?? metadata.deviceAuthorizationEndpoint
        copy.revocationURL = revocationURL ?? metadata.revocationEndpoint
        copy.endSessionURL = endSessionURL ?? metadata.endSessionEndpoint
        return copy
    }

    func encoded() -> [UInt8] { Array((try? JSONEncoder().encode(self)) ?? Data()) }

    static func decode(_ bytes: [UInt8]) -> LoginSettings? { try? JSONDecoder().decode(LoginSettings.self, from: Data(bytes)) }
}
