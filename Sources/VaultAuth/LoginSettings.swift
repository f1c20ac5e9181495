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
    /// The OAuth client secret: a `Secret`, so `print`, `dump` and logs never show it.
    public var clientSecret: Secret?
    public var clientAuthentication: ClientAuthentication
    public var grant: Grant
    public var scope: String?

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

    public var description: String {
        "LoginSettings(provider: \(provider.rawValue), server: \(serverURL), tokenURL: \(tokenURL ?? "-"), "
            + "clientID: \(clientID ?? "-"), clientSecret: \(clientSecret == nil ? "none" : "<redacted>"), grant: \(grant.rawValue))"
    }

    private enum CodingKeys: String, CodingKey {
        case provider, serverURL, tokenURL, clientID, clientSecret, clientAuthentication, grant, scope
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
    }

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
    }

    func encoded() -> [UInt8] { Array((try? JSONEncoder().encode(self)) ?? Data()) }

    static func decode(_ bytes: [UInt8]) -> LoginSettings? { try? JSONDecoder().decode(LoginSettings.self, from: Data(bytes)) }
}
