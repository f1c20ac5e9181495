// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import HTTPTypes
import VaultAuth
import VaultStore

/// A token endpoint's answers: the success body of an OAuth 2.0 token response (RFC 6749
/// §5.1) and of the reference API's login, and the error bodies of both (§5.2, the API's
/// `{"message"}`), read by the real providers over a transport that returns the bytes.
enum OAuthResponseTargets {
    /// Invariant: a body is refused with `.server` (status 200), or gives tokens whose access
    /// and refresh tokens are visible ASCII (``TokenCharacters``), whose expiries are finite
    /// (and, for RFC 6749's relative `expires_in`, within the accepted lifetime after the fixed
    /// "now"), with no unverified ID token kept, and which the stored form gives back equal.
    static let tokenResponse = FuzzTarget(
        name: "token-response",
        summary: "a token endpoint's 200 body (OAuth 2.0 and the reference API): refused, or sane tokens that store faithfully"
    ) { bytes throws(InvariantViolation) in
        let oauth = try AsyncRunner.run { () async -> Result<TokenSet, AuthError> in
            do throws(AuthError) {
                return .success(try await oauthProvider(bytes).login(account: "fuzz", password: Secret("fuzz")))
            } catch {
                return .failure(error)
            }
        }
        try checkTokens(oauth, what: "OAuth 2.0")
        if case .success(let tokens) = oauth {
            let seconds = tokens.accessTokenExpiry.timeIntervalSince(fuzzNow)
            try require(seconds > 0 && seconds <= OAuth2Provider.maximumLifetime, "expires_in \(seconds) outside (0, 10 years]")
            if let refreshExpiry = tokens.refreshTokenExpiry {
                let refreshSeconds = refreshExpiry.timeIntervalSince(fuzzNow)
                try require(refreshSeconds > 0 && refreshSeconds <= OAuth2Provider.maximumLifetime, "refresh_expires_in \(refreshSeconds)")
            }
            let fields = JSONStringFields.of(bytes)
            try require(tokens.accessToken.utf8String == fields?["access_token"], "access token is not the body's access_token")
            try require(fields?["token_type"]?.lowercased() == "bearer", "accepted a token_type other than Bearer")
        }
        let reference = try AsyncRunner.run { () async -> Result<TokenSet, AuthError> in
            do throws(AuthError) {
                let provider = ReferenceAPIProvider(
                    baseURL: referenceBase, transport: FixedTransport(body: bytes), clock: FixedClock(date: fuzzNow))
                return .success(try await provider.login(account: "fuzz", password: Secret("fuzz")))
            } catch {
                return .failure(error)
            }
        }
        try checkTokens(reference, what: "reference API")
    }

    /// The reference API's base URL (never contacted: the transport answers).
    static let referenceBase = URL(string: "https://api.example.com/") ?? URL(fileURLWithPath: "/")

    static func oauthProvider(_ body: [UInt8]) throws(AuthError) -> OAuth2Provider {
        let settings = LoginSettings(
            provider: .oauth2, serverURL: "https://api.example.com", tokenURL: "https://auth.example.com/token",
            clientID: "vault-fuzz", grant: .password)
        return try OAuth2Provider(settings: settings, transport: FixedTransport(body: body), clock: FixedClock(date: fuzzNow))
    }

    /// The invariants both providers' token responses share.
    static func checkTokens(_ result: Result<TokenSet, AuthError>, what: String) throws(InvariantViolation) {
        let tokens: TokenSet
        switch result {
        case .failure(let error):
            guard case .server(let status, let message) = error else {
                throw InvariantViolation("\(what): a 200 body was refused with \(error), not a server error")
            }
            try require(status == 200, "\(what): refusal names status \(status)")
            try require(TerminalSafety.isSafe(message), "\(what): refusal has a control character: \(message.debugDescription)")
            return
        case .success(let accepted): tokens = accepted
        }
        try require(
            tokens.accessToken.utf8String.map(TokenCharacters.isAcceptable) == true, "\(what): accepted an unacceptable access token")
        if let refresh = tokens.refreshToken {
            try require(refresh.utf8String.map(TokenCharacters.isAcceptable) == true, "\(what): accepted an unacceptable refresh token")
        }
        try require(tokens.idToken == nil, "\(what): kept an ID token without verifying it")
        try require(tokens.obtainedAt == fuzzNow, "\(what): obtainedAt is not the fixed now")
        try require(tokens.accessTokenExpiry.timeIntervalSince1970.isFinite, "\(what): access expiry is not finite")
        try require(
            tokens.refreshTokenExpiry.map { $0.timeIntervalSince1970.isFinite } ?? true, "\(what): refresh expiry is not finite")
        guard let stored = TokenSet(encoded: tokens.encoded()) else {
            throw InvariantViolation("\(what): the stored form of \(tokens) does not read back")
        }
        try require(stored.accessToken == tokens.accessToken && stored.refreshToken == tokens.refreshToken, "\(what): tokens change when stored")
        try require(
            close(stored.accessTokenExpiry, tokens.accessTokenExpiry) && close(stored.obtainedAt, tokens.obtainedAt)
                && closeOptional(stored.refreshTokenExpiry, tokens.refreshTokenExpiry),
            "\(what): expiries change when stored: \(tokens) became \(stored)")
    }

    /// Equal within a microsecond (the stored form counts from 1970, `Date` from 2001).
    static func close(_ a: Date, _ b: Date) -> Bool {
        abs(a.timeIntervalSince1970 - b.timeIntervalSince1970) <= max(1e-6, abs(b.timeIntervalSince1970) * 1e-15)
    }

    static func closeOptional(_ a: Date?, _ b: Date?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let a?, let b?): close(a, b)
        default: false
        }
    }

    /// Invariant: an error response (a §5.2 body or the reference API's, any status, any
    /// `Retry-After`) becomes one of the documented errors (to a refresh, a 400 or 401 is
    /// always a refused refresh token), and nothing in its message can drive a terminal.
    /// Input: the body, then optionally a NUL and the `Retry-After` value.
    static let error = FuzzTarget(
        name: "oauth-error",
        summary: "an error response of a token endpoint: a documented error whose message has no control characters"
    ) { bytes throws(InvariantViolation) in
        let body = Array(bytes.prefix { $0 != 0 })
        let retryAfter = bytes.count > body.count ? String(decoding: bytes.dropFirst(body.count + 1), as: UTF8.self) : nil
        let headers = retryAfter.map { [(name: "Retry-After", value: $0)] } ?? []
        let fields = JSONStringFields.of(body)  // OAuth's and the reference API's reading
        for status in [400, 401, 429, 503] {
            let response = HTTPResponse(status: .init(code: status), headerFields: HTTPFields(fuzzed: headers))
            let oauth = OAuth2Provider.classify(response, body: body)
            try require(TerminalSafety.isSafe(oauth.description), "OAuth error shows a control character: \(oauth.description.debugDescription)")
            if let code = oauth.providerCode {
                try require(TerminalSafety.isSafe(code), "provider code has a control character: \(code.debugDescription)")
            }
            switch oauth {
            case .authentication(_, let code, _):
                try require(code == "invalid_grant" && fields?["error"] == "invalid_grant", "authentication error without invalid_grant")
                try require(status < 500 && status != 429, "a \(status) became an authentication error")
            case .configuration:
                try require(fields?["error"] != nil, "configuration error without an error code")
                try require(status < 500 && status != 429, "a \(status) became a configuration error")
            case .server(let shown, _):
                try require(shown == status, "server error names \(shown), not \(status)")
            default:
                throw InvariantViolation("OAuth error response became \(oauth)")
            }
            // A refresh: a 400 or 401 naming no error (empty, or JSON without one) is a refused
            // refresh token; temporarily_unavailable is the server's; others as classify says.
            let refresh = OAuth2Provider.classifyRefusedRefresh(response, body: body)
            try require(
                TerminalSafety.isSafe(refresh.description), "refresh error shows a control character: \(refresh.description.debugDescription)")
            let blank = body.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
            let named = fields?["error"]
            if (status == 400 || status == 401) && oauth.providerCode == nil && (blank || fields != nil) {
                guard case .authentication(_, nil, _) = refresh else { throw InvariantViolation("a \(status) naming no error became \(refresh)") }
            } else if (status == 400 || status == 401) && named == "temporarily_unavailable" {
                try require(refresh.isTransient, "temporarily_unavailable to a refresh became \(refresh)")
            } else {
                try require(refresh == oauth, "a \(status) to a refresh became \(refresh), not \(oauth)")
            }
            let api = ReferenceAPIProvider.classify(response, body: body, what: "login")
            try require(TerminalSafety.isSafe(api.description), "API error shows a control character: \(api.description.debugDescription)")
            switch api {
            case .authentication: try require(status == 401 || fields?["message"] != nil, "authentication error without 401 or message")
            case .server(let shown, _): try require(shown == status, "server error names \(shown), not \(status)")
            default: throw InvariantViolation("API error response became \(api)")
            }
        }
    }
}

/// The check, made apart from ``TextEscaping``, that text cannot drive a terminal: no C0 or
/// C1 control, DEL, line or paragraph separator, format character (`Cf`, bidi controls among
/// them) or tag character.
enum TerminalSafety {
    static func isSafe(_ text: String) -> Bool {
        !text.unicodeScalars.contains { scalar in
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0xE0000...0xE007F: true
            default: scalar.properties.generalCategory == .format
            }
        }
    }
}
