// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// What a person can do about an ``AuthError``, typed, so that the program that shows the
/// error words it in its own terms (the `vault` command line names its commands and
/// flags); ``AuthError/remedy``. The library's own messages name neither.
public enum AuthRemedy: Sendable, Equatable, CustomStringConvertible {
    /// Sign in to the account (again): the stored credentials or tokens cannot do it.
    /// `server` and `account` are the account's, when the error knows them.
    case logIn(server: String?, account: String?)
    /// The interactive sign-in under way ended without tokens (timed out, expired,
    /// interrupted): start it once more.
    case logInAgain
    /// The provider rejected the OAuth client: correct its id or secret, then sign in.
    case checkClient
    /// A login setting the provider needs is missing or unusable: give it.
    case giveSetting(LoginSettings.Setting)
    /// An endpoint the chosen grant needs is unknown: give it, or sign in with `otherwise`.
    case giveEndpoint(LoginSettings.Setting, otherwise: LoginSettings.Grant)
    /// The issuer publishes no metadata: give its endpoints one by one (an
    /// ``LoginSettings/ProviderKind/oauth2`` account).
    case giveEndpoints
    /// This needs another kind of provider: one of `kinds`.
    case useProvider([LoginSettings.ProviderKind])
    /// A browser sign-in went to the provider and never came back: the provider may have
    /// refused the client id or the redirect URI (some accept only the one registered).
    case checkRedirect

    /// Plain advice that names no program: "sign in again", "give the token URL".
    public var description: String {
        switch self {
        case .logIn: "sign in again"
        case .logInAgain: "start the sign-in again"
        case .checkClient: "check the client id and secret, then sign in again"
        case .giveSetting(let setting): "give the \(setting.rawValue) setting"
        case .giveEndpoint(let setting, let grant): "give the \(setting.rawValue) setting or sign in with the \(grant.rawValue) grant"
        case .giveEndpoints: "give the provider's endpoints one by one (provider oauth2)"
        case .useProvider(let kinds): "use provider " + kinds.map(\.rawValue).joined(separator: " or ")
        case .checkRedirect: "if the provider showed an error, check the client id and sign in with the redirect URI registered for it"
        }
    }
}

extension LoginSettings {
    /// The login settings an ``AuthRemedy`` can ask for.
    public enum Setting: String, Sendable, CaseIterable {
        /// ``LoginSettings/tokenURL``.
        case tokenURL
        /// ``LoginSettings/clientID``.
        case clientID
        /// ``LoginSettings/issuer``: the OpenID Connect issuer whose metadata names the endpoints.
        case issuer
        /// ``LoginSettings/authorizationURL``.
        case authorizationURL
        /// ``LoginSettings/deviceURL``.
        case deviceURL
    }
}
