// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import HTTPTypes
import VaultStore

/// What an authorization server says about itself: OpenID Connect Discovery 1.0
/// (`/.well-known/openid-configuration`) or RFC 8414 (`/.well-known/oauth-authorization-server`).
public struct ProviderMetadata: Sendable, Equatable {
    /// The issuer identifier, exactly as the document states it (ID tokens carry it in `iss`).
    public var issuer: String
    /// Where a person is sent to sign in (authorization code grant).
    public var authorizationEndpoint: String?
    /// Where codes, device codes and refresh tokens become tokens; every document has one.
    public var tokenEndpoint: String
    /// RFC 8628's device authorization endpoint.
    public var deviceAuthorizationEndpoint: String?
    /// RFC 7009's revocation endpoint.
    public var revocationEndpoint: String?
    /// The signing keys of ID tokens.
    public var jwksURI: String?
    /// OpenID Connect RP-initiated logout.
    public var endSessionEndpoint: String?

    /// Metadata as given; ``discover(issuer:transport:timeout:)`` fills it from the provider.
    public init(
        issuer: String, authorizationEndpoint: String?, tokenEndpoint: String, deviceAuthorizationEndpoint: String? = nil,
        revocationEndpoint: String? = nil, jwksURI: String? = nil, endSessionEndpoint: String? = nil
    ) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.jwksURI = jwksURI
        self.endSessionEndpoint = endSessionEndpoint
    }

    /// Reads the metadata of `issuer`: first OpenID Connect Discovery, then, when that
    /// document does not exist (a 4xx), RFC 8414. The document must name `issuer` itself
    /// (a trailing slash aside; OpenID Connect Discovery §4.3, RFC 8414 §3.3), and every
    /// endpoint must be printable text without spaces and pass ``URLPolicy`` (https, or http
    /// on loopback only).
    ///
    /// Errors: a document naming another issuer, or one without a usable `token_endpoint`, is
    /// ``AuthError/configuration(_:providerCode:remedy:)``; no document at all is `.configuration` too;
    /// 5xx and timeouts are `.server` / `.network`. Redirects are not followed.
    public static func discover(
        issuer: String, transport: any HTTPTransport, timeout: Duration
    ) async throws(AuthError)
        -> ProviderMetadata
    {
        guard let issuerURL = URL(string: issuer), issuerURL.host != nil, issuerURL.query == nil, issuerURL.fragment == nil
        else {
            throw .invalidRequest("the issuer must be the provider's issuer URL, such as https://accounts.example.com", remedy: .giveSetting(.issuer))
        }
        try URLPolicy.check(issuerURL)
        var lastStatus = 0
        for url in documentURLs(issuerURL) {
            let (response, body) = try await transport.send(
                HTTPRequest(method: .get, url: url, headerFields: [.accept: "application/json"]), timeout: timeout)
            let status = response.status.code
            if response.status.kind == .successful { return try parse(body, status: status, expectedIssuer: issuer) }
            if status >= 500 || status == 429 {
                throw .server(status: status, message: "the provider's metadata could not be read")
            }
            lastStatus = status
        }
        throw .configuration(
            "\(TextEscaping.escaped(issuer)) publishes no OpenID Connect or RFC 8414 metadata (HTTP \(lastStatus))", remedy: .giveEndpoints)
    }

    /// `ISSUER/.well-known/openid-configuration`, then RFC 8414's form, which puts the
    /// well-known segment before the issuer's path.
    static func documentURLs(_ issuer: URL) -> [URL] {
        var path = issuer.path
        while path.hasSuffix("/") { path.removeLast() }
        guard var components = URLComponents(url: issuer, resolvingAgainstBaseURL: false) else { return [] }
        components.path = path + "/.well-known/openid-configuration"
        let openID = components.url
        components.path = "/.well-known/oauth-authorization-server" + path
        return [openID, components.url].compactMap { $0 }
    }

    /// The metadata in `body`, a 2xx answer (`status`) from the provider's metadata URL, once it names `expectedIssuer`.
    package static func parse(_ body: [UInt8], status: Int = 200, expectedIssuer: String) throws(AuthError) -> ProviderMetadata {
        guard let document = OAuthJSON.decode(MetadataDocument.self, body) else {
            throw .server(status: status, message: "the provider's metadata is not a JSON object")
        }
        guard let issuer = document.fields[.issuer]?.value else {
            throw .configuration("the provider's metadata names no issuer")
        }
        guard trimmed(issuer) == trimmed(expectedIssuer) else {
            throw .configuration(
                "the provider's metadata names the issuer \(TextEscaping.escaped(String(issuer.prefix(200)))), "
                    + "not \(TextEscaping.escaped(expectedIssuer)); refusing it")
        }
        func endpoint(_ field: MetadataDocument.Field) throws(AuthError) -> String? {
            guard let value = document.fields[field] else { return nil }
            let name = field.rawValue
            // Printable, without spaces (as the device grant's URIs): Foundation would take a
            // control character into the URL, and the text itself is kept in the settings.
            guard let text = value.value, OAuth2Provider.isWebURL(text), let url = URL(string: text), url.host != nil else {
                throw .configuration("the provider's metadata has an unusable \(name)")
            }
            do throws(AuthError) {
                try URLPolicy.check(url)
            } catch {
                throw .configuration("the provider's \(name) is refused: \(error)")
            }
            return text
        }
        guard let token = try endpoint(.tokenEndpoint) else {
            throw .configuration("the provider's metadata has no token_endpoint")
        }
        return ProviderMetadata(
            issuer: issuer, authorizationEndpoint: try endpoint(.authorizationEndpoint), tokenEndpoint: token,
            deviceAuthorizationEndpoint: try endpoint(.deviceAuthorizationEndpoint),
            revocationEndpoint: try endpoint(.revocationEndpoint), jwksURI: try endpoint(.jwksURI),
            endSessionEndpoint: try endpoint(.endSessionEndpoint))
    }

    private static func trimmed(_ text: String) -> Substring {
        text.hasSuffix("/") ? text.dropLast() : Substring(text)
    }
}

/// The members of a metadata document vault reads. A member that is present counts even
/// when it is `null` or not a string: the document is then refused, not read as lacking it.
private struct MetadataDocument: Decodable {
    enum Field: String, CodingKey, CaseIterable {
        case issuer, tokenEndpoint = "token_endpoint", authorizationEndpoint = "authorization_endpoint"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint", revocationEndpoint = "revocation_endpoint"
        case jwksURI = "jwks_uri", endSessionEndpoint = "end_session_endpoint"
    }

    let fields: [Field: Loose<String>]

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Field.self)
        var fields: [Field: Loose<String>] = [:]
        for field in Field.allCases { fields[field] = container.looseIfPresent(forKey: field) }
        self.fields = fields
    }
}
