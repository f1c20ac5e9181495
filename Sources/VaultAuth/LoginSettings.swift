import Foundation
import VaultStore

/// How an account logs in, remembered per server and account (a `.settings` item) so
/// that `vault token` and `vault request` need only `--server` and `--account`.
///
/// The OAuth client secret lives here, inside the secure store, never in a plain file.
public struct LoginSettings: Sendable, Equatable, Codable, CustomStringConvertible {
    public enum ProviderKind: String, Sendable, Codable, CaseIterable {
        /// The reference API (`/api/login`, `/api/refresh_tokens`).
        case reference
        /// An OAuth 2.0 token endpoint (RFC 6749).
        case oauth2
    }

    public enum Grant: String, Sendable, Codable, CaseIterable {
        /// Resource-owner password grant: logs in with the account's stored password.
        case password
        /// Client-credentials grant: a service account, authenticated by the client secret.
        case clientCredentials = "client-credentials"
    }

    public enum ClientAuthentication: String, Sendable, Codable, CaseIterable {
        /// HTTP Basic with the client id and secret (RFC 6749 §2.3.1, preferred).
        case basic
        /// `client_id` and `client_secret` in the form body.
        case form
    }

    public var provider: ProviderKind
    /// The server URL as given to `vault login`, normalised.
    public var serverURL: String
    public var tokenURL: String?
    public var clientID: String?
    public var clientSecret: String?
    public var clientAuthentication: ClientAuthentication
    public var grant: Grant
    public var scope: String?

    public init(
        provider: ProviderKind = .reference, serverURL: String, tokenURL: String? = nil, clientID: String? = nil,
        clientSecret: String? = nil, clientAuthentication: ClientAuthentication = .basic, grant: Grant = .password,
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

    public var description: String {
        "LoginSettings(provider: \(provider.rawValue), server: \(serverURL), tokenURL: \(tokenURL ?? "-"), "
            + "clientID: \(clientID ?? "-"), clientSecret: \(clientSecret == nil ? "none" : "<redacted>"), grant: \(grant.rawValue))"
    }

    func encoded() -> [UInt8] { Array((try? JSONEncoder().encode(self)) ?? Data()) }

    static func decode(_ bytes: [UInt8]) -> LoginSettings? { try? JSONDecoder().decode(LoginSettings.self, from: Data(bytes)) }
}
