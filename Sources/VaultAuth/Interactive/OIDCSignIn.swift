// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation

/// What ``AuthSession/signIn(with:)`` needs for a person's sign-in through an OpenID
/// Connect or OAuth 2.0 provider: in this machine's browser (authorization code with PKCE,
/// ``BrowserSignIn``) or on another device (RFC 8628, ``DeviceSignIn``), as the settings'
/// grant says. The callbacks show the person what to do; they run on whatever thread the
/// work runs.
public struct OIDCSignInRequest: Sendable {
    /// The account's settings: an ``LoginSettings/ProviderKind/oidc`` or
    /// ``LoginSettings/ProviderKind/oauth2`` provider, grant ``LoginSettings/Grant/authorizationCode``
    /// or ``LoginSettings/Grant/device``. Endpoints given here win over discovered ones.
    public var settings: LoginSettings
    /// The OpenID Connect issuer whose metadata names the endpoints and the JWKS (nil: the
    /// settings name the endpoints themselves).
    public var issuer: String?
    /// How long to wait for the person (default 300 s): the browser sign-in always, the
    /// device sign-in only when ``boundsDeviceSignIn`` (else until its code expires).
    public var waitLimit: Duration
    /// Whether ``waitLimit`` bounds a device sign-in too (default false).
    public var boundsDeviceSignIn: Bool
    /// Shows the one-time start link of a browser sign-in (printed, whether or not a browser opens).
    public var presentStartLink: @Sendable (URL) -> Void
    /// Opens the start link in a browser (default: ``BrowserLauncher``).
    public var openBrowser: @Sendable (URL) -> Void
    /// How the loopback listener's pages name the program (default ``SignInPageNames/neutral``).
    public var pageNames: SignInPageNames
    /// Told of each user whose connection to the loopback listener was refused.
    public var refused: @Sendable (RefusedConnection) -> Void
    /// Shows the device code and where to enter it.
    public var presentDeviceCode: @Sendable (DeviceAuthorization) -> Void
    /// Runs once the account's lock is held, just before the tokens and settings are written
    /// (a command stops honouring Ctrl-C there).
    public var locked: @Sendable () -> Void

    /// A request for `settings`, discovering from `issuer` when given; see the properties for the defaults.
    public init(
        settings: LoginSettings, issuer: String? = nil, waitLimit: Duration = .seconds(300), boundsDeviceSignIn: Bool = false,
        presentStartLink: @escaping @Sendable (URL) -> Void, openBrowser: @escaping @Sendable (URL) -> Void = BrowserLauncher.openDefault,
        pageNames: SignInPageNames = .neutral, refused: @escaping @Sendable (RefusedConnection) -> Void = { _ in },
        presentDeviceCode: @escaping @Sendable (DeviceAuthorization) -> Void, locked: @escaping @Sendable () -> Void = {}
    ) {
        self.settings = settings
        self.issuer = issuer
        self.waitLimit = waitLimit
        self.boundsDeviceSignIn = boundsDeviceSignIn
        self.presentStartLink = presentStartLink
        self.openBrowser = openBrowser
        self.pageNames = pageNames
        self.refused = refused
        self.presentDeviceCode = presentDeviceCode
        self.locked = locked
    }
}

extension BrowserLauncher {
    /// Opens `url` with a launcher for this process's environment.
    @Sendable public static func openDefault(_ url: URL) { BrowserLauncher().open(url.absoluteString) }
}

extension AuthSession {
    /// A person signs in, in one call: discovers the provider's endpoints and JWKS from
    /// `request.issuer` (an issuer whose metadata names no JWKS is refused: its ID tokens
    /// could not be verified), signs in through the browser or on another device as the
    /// grant says, then stores the settings and the tokens (``adopt(_:settings:locked:)``).
    /// Discovery and the token exchanges are bounded by ``Requester/Configuration/requestTimeout``.
    ///
    /// Errors: a provider without the endpoint the grant needs is
    /// ``AuthError/configuration(_:providerCode:remedy:)`` with remedy
    /// ``AuthRemedy/giveEndpoint(_:otherwise:)``; the rest as ``BrowserSignIn`` and
    /// ``DeviceSignIn`` fail. Nothing is stored unless the sign-in succeeds.
    @discardableResult
    public func signIn(with request: OIDCSignInRequest) async throws(AuthError) -> TokenSet {
        var settings = request.settings
        if let issuer = request.issuer {
            let metadata = try await ProviderMetadata.discover(issuer: issuer, transport: transport, timeout: configuration.requestTimeout)
            guard metadata.jwksURI != nil else {
                throw .configuration("the provider's metadata names no jwks_uri, so its ID tokens cannot be verified")
            }
            settings = settings.adopting(metadata)
        }
        let oauth = try oauthProvider(for: settings)
        let tokens: TokenSet
        if settings.grant == .device {
            guard let url = settings.deviceURL.flatMap(URL.init(string:)) else {
                throw .configuration(
                    "the provider has no device authorization endpoint", remedy: .giveEndpoint(.deviceURL, otherwise: .authorizationCode))
            }
            tokens = try await DeviceSignIn(provider: oauth, deviceURL: url, timeout: request.boundsDeviceSignIn ? request.waitLimit : nil)
                .run(present: request.presentDeviceCode)
        } else {
            guard let url = settings.authorizationURL.flatMap(URL.init(string:)) else {
                throw .configuration("the provider has no authorization endpoint", remedy: .giveEndpoint(.authorizationURL, otherwise: .device))
            }
            let redirect = try settings.redirectURI.map { text throws(AuthError) in try LoopbackRedirect(parsing: text) } ?? .anyPort
            tokens = try await BrowserSignIn(
                provider: oauth, authorizationURL: url, openIDConnect: settings.isOpenIDConnect, timeout: request.waitLimit,
                pageNames: request.pageNames, redirect: redirect
            ).run(present: request.presentStartLink, open: request.openBrowser, refused: request.refused)
        }
        try await adopt(tokens, settings: settings, locked: request.locked)
        return tokens
    }
}
