// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultAuth

/// OpenID Connect ID tokens (Core §3.1.3.7, §12.2) as IDTokenVerifier checks them, with a
/// fixed JWKS (one RS256 and one ES256 test key, `Tests/Fuzz/Generators/auth-seeds.py`), a
/// fixed clock, issuer, client id and nonce.
enum IDTokenTargets {
    static let issuer = "https://accounts.example.com"
    static let clientID = "vault-fuzz"
    static let nonce = "n-0S6_WzA2Mj"

    /// The public halves of the seeds' signing keys (the JSON in lines of 110 characters, joined again).
    static let jwks = #"""
        {"keys":[{"kty":"RSA","kid":"fuzz-rs","use":"sig","alg":"RS256","n":"p4F-0___IEGAylXUS5awQuwIX3IGmZ23ArVS-_DCX
        aU0vr9ZxC1k6wbTd5hnlsjbJXt_3qu1v2XW7KKcu8yky7S9820vLxV5hxq4bVeAG-wLbMtiaoxMvMuhcQZ4cq5lcQIruJznnVFie0NSx5R662-
        UdJvgplsyMLONOrvks663c-g2xfakpWktrKNRaQfoKHqx-iWkWBhuJwe9TuHIMfnaK9kKFpq_fNOl8XBOLt-MsUyo6uP9-dNksWE5L7wx97yOq
        HxKbF_wrAs6pBdeQOwPgS_1vW_YdLqNZ_80FWzTUJjUu5CVajBY65WA2a15SFRWLhPu_sNWzIoV35GbFw","e":"AQAB"},{"kty":"EC","ki
        d":"fuzz-es","use":"sig","alg":"ES256","crv":"P-256","x":"4WFjzcVhwQgmN0jNptC2tzA9uSCWnsbpBB_yQnxTMM0","y":"jq
        Q2coQnQJhuDryDj2u12xxt85e-RliTT4QXrTtoCUY"}]}
        """#.split(separator: "\n").joined()

    /// One verifier for every input: its JWKS is fetched (from the fixed transport) once.
    static let verifier = IDTokenVerifier(
        issuer: issuer, clientID: clientID, jwksURL: URL(string: issuer + "/jwks") ?? URL(fileURLWithPath: "/"),
        transport: FixedTransport(body: Array(jwks.utf8)), clock: FixedClock(date: fuzzNow))

    /// The claims of the session a refreshed ID token must continue (§12.2): the seeds' user.
    static let session = IDTokenClaims(
        payload: Array(
            #"{"iss":"https://accounts.example.com","sub":"user-1","aud":"vault-fuzz","iat":1767225540,"exp":1767229200,"nonce":"n-0S6_WzA2Mj"}"#.utf8
        ))

    /// Invariant: a token is refused with `.authentication` (a message without control
    /// characters), or it carries the fixed nonce, and: its claims are those of its payload
    /// segment, read here apart from the verifier; the issuer, audience and times are within
    /// the rules; any change to the signed part or the signature makes it refused; it verifies
    /// without a nonce too; and as a refresh's token of the fixed session it is accepted
    /// exactly when its `iss`, `sub` and `aud` are the session's.
    static let idToken = FuzzTarget(
        name: "id-token",
        summary: "an ID token against a fixed JWKS, clock and nonce: refused, or signed, claims as signed, §12.2 continuity"
    ) { bytes throws(InvariantViolation) in
        let text = String(decoding: bytes, as: UTF8.self)
        guard let claims = try verify(text, nonce: nonce) else { return }
        try checkClaims(claims, of: text)
        for changed in changes(of: text) {
            try require(try verify(changed, nonce: nonce) == nil, "a changed token still verifies: \(changed.debugDescription)")
        }
        try require(try verify(text, nonce: nil) == claims, "a token that verifies with its nonce fails without one")
        guard let session else { throw InvariantViolation("the session's claims do not read") }
        let continues =
            claims.issuer == session.issuer && claims.subject == session.subject
            && Set(claims.audiences) == Set(session.audiences)
        let refreshed = try verify(text, nonce: nil, previous: session)
        try require((refreshed != nil) == continues, "§12.2: continuity \(continues), verified \(refreshed != nil)")
    }

    /// The claims when `token` verifies; nil when it is refused as documented.
    static func verify(_ token: String, nonce: String?, previous: IDTokenClaims? = nil) throws(InvariantViolation) -> IDTokenClaims? {
        let result = try AsyncRunner.run { () async -> Result<IDTokenClaims, AuthError> in
            do throws(AuthError) {
                return .success(try await verifier.verify(token, nonce: nonce, previous: previous))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let claims): return claims
        case .failure(.authentication(let message, nil, nil)):
            try require(TerminalSafety.isSafe(message), "refusal shows a control character: \(message.debugDescription)")
            return nil
        case .failure(let error): throw InvariantViolation("a token was refused with \(error)")
        }
    }

    /// The payload read apart from the verifier, and the rules the verifier claims to apply.
    static func checkClaims(_ claims: IDTokenClaims, of token: String) throws(InvariantViolation) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        try require(parts.count == 3, "a verified token has \(parts.count) parts")
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let payload = Data(base64Encoded: base64)
        try require(payload.map(Array.init) == claims.json, "claims are not the payload segment's")
        let fields = payload.flatMap { JSONStringFields.read(Array($0)) }
        let object = fields?.values
        try require(object?["iss"] == claims.issuer && claims.issuer == issuer, "issuer \(claims.issuer.debugDescription)")
        try require(object?["sub"] == claims.subject, "subject is not the payload's")
        let audiences = fields?.lists["aud"] ?? object?["aud"].map { [$0] }
        try require(audiences == claims.audiences && claims.audiences.contains(clientID), "audiences \(claims.audiences)")
        if claims.audiences.count > 1 || claims.authorizedParty != nil {
            try require(claims.authorizedParty == clientID, "azp \(String(describing: claims.authorizedParty))")
        }
        try require(claims.nonce == nonce && object?["nonce"] == nonce, "nonce \(String(describing: claims.nonce))")
        try require(claims.expiresAt.timeIntervalSince(fuzzNow) > -120, "accepted an expired token (exp \(claims.expiresAt))")
        try require(claims.issuedAt.timeIntervalSince(fuzzNow) <= 120, "accepted a token issued in the future (iat \(claims.issuedAt))")
    }

    /// The token with its signed part or its signature changed: the middle character of each
    /// segment replaced by the one whose six bits differ in the highest (so even a last
    /// character, which carries only its high bits, changes the bytes).
    static func changes(of token: String) -> [String] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map { Array($0.utf8) }
        guard parts.count == 3 else { return [] }
        return (0..<3).compactMap { index -> String? in
            let middle = parts[index].count / 2
            guard middle < parts[index].count, let value = alphabet.firstIndex(of: parts[index][middle]) else { return nil }
            var changed = parts
            changed[index][middle] = alphabet[value ^ 32]
            return changed.map { String(decoding: $0, as: UTF8.self) }.joined(separator: ".")
        }
    }

    /// base64url's 64 characters, in the order of their values.
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
}
