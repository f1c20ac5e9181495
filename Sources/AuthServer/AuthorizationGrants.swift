// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Crypto
import Foundation
import VaultSync

/// An authorization code and what it is bound to (RFC 6749 §4.1.3, RFC 7636 §4.6).
struct AuthorizationCode: Sendable {
    /// The client it was issued to.
    let clientID: String
    /// The exact `redirect_uri` of the authorization request.
    let redirectURI: String
    /// The S256 `code_challenge`, if the request had one.
    let codeChallenge: String?
    /// The `nonce` of the request, for the ID token.
    let nonce: String?
    /// The granted scope.
    let scope: String?
    /// The user who allowed it.
    let user: UserIdentity
    /// Expiry, Unix milliseconds.
    let expiresAtMillis: Int64
}

/// Where a device authorization stands (RFC 8628).
enum DeviceDecision: Sendable, Equatable {
    /// The user has not answered.
    case pending
    /// The user allowed it.
    case approved(UserIdentity)
    /// The user denied it.
    case denied
}

/// A device authorization request (RFC 8628 §3.2).
struct DeviceGrant: Sendable {
    /// The client that asked.
    let clientID: String
    /// The requested scope.
    let scope: String?
    /// The code the user types, `ABCD-EFGH`.
    let userCode: String
    /// Expiry, Unix milliseconds.
    let expiresAtMillis: Int64
    /// The current minimum polling interval, milliseconds (grows on `slow_down`).
    var intervalMillis: Int64
    /// The last poll, Unix milliseconds.
    var lastPollMillis: Int64?
    /// The user's answer so far.
    var decision: DeviceDecision = .pending
    /// Set by a test: the next poll answers `slow_down` whatever its timing.
    var slowDownRequested = false
}

/// What a device-code poll concluded.
enum DevicePoll: Sendable, Equatable {
    case pending
    case slowDown
    case denied
    case expired
    case invalid
    case approved(UserIdentity, clientID: String, scope: String?)
}

/// The server-side state of the authorization code and device grants.
final class AuthorizationGrants: Sendable {
    private struct State {
        var codes: [String: AuthorizationCode] = [:]
        var devices: [String: DeviceGrant] = [:]
        var deviceCodeByUserCode: [String: String] = [:]
    }

    private let state = Locked(State())

    /// A random URL-safe string of `bytes` random bytes.
    static func randomToken(bytes: Int = 32) -> String {
        let key = SymmetricKey(size: .init(bitCount: bytes * 8))
        return key.withUnsafeBytes { Data($0) }.base64URLEncoded
    }

    /// Stores a new code; returns it.
    func issueCode(_ code: AuthorizationCode) -> String {
        let value = Self.randomToken()
        state.withLock { state in
            let now = WallClock.millis()
            state.codes = state.codes.filter { $0.value.expiresAtMillis > now }
            state.codes[value] = code
        }
        return value
    }

    /// Takes a code out (single use: it is gone whatever the exchange concludes).
    func consumeCode(_ value: String) -> AuthorizationCode? {
        state.withLock { $0.codes.removeValue(forKey: value) }
    }

    /// Stores a new device request; returns its device code.
    func issueDevice(clientID: String, scope: String?, lifetimeMillis: Int64, intervalMillis: Int64) -> (deviceCode: String, userCode: String) {
        let deviceCode = Self.randomToken()
        return state.withLock { state in
            var userCode = Self.makeUserCode()
            while state.deviceCodeByUserCode[userCode] != nil { userCode = Self.makeUserCode() }
            state.devices[deviceCode] = DeviceGrant(
                clientID: clientID, scope: scope, userCode: userCode,
                expiresAtMillis: WallClock.millis() + lifetimeMillis, intervalMillis: intervalMillis)
            state.deviceCodeByUserCode[userCode] = deviceCode
            return (deviceCode, userCode)
        }
    }

    /// Records the user's answer for `userCode` (case and a missing dash forgiven); `false`
    /// for an unknown, expired or already answered code.
    func decide(userCode: String, decision: DeviceDecision) -> Bool {
        let normalized = Self.normalize(userCode)
        return state.withLock { state in
            guard let deviceCode = state.deviceCodeByUserCode[normalized], var grant = state.devices[deviceCode],
                grant.decision == .pending, grant.expiresAtMillis > WallClock.millis()
            else { return false }
            grant.decision = decision
            state.devices[deviceCode] = grant
            return true
        }
    }

    /// Makes the next poll of `userCode`'s device code answer `slow_down` (as a loaded server
    /// would); `false` for an unknown code.
    func requestSlowDown(userCode: String) -> Bool {
        let normalized = Self.normalize(userCode)
        return state.withLock { state in
            guard let deviceCode = state.deviceCodeByUserCode[normalized], state.devices[deviceCode] != nil else { return false }
            state.devices[deviceCode]?.slowDownRequested = true
            return true
        }
    }

    /// One poll of `deviceCode` by `clientID` (RFC 8628 §3.5). An approved or denied
    /// grant is answered once, then forgotten.
    func poll(deviceCode: String, clientID: String, pendingAfterExpiry: Bool, slowDownMillis: Int64) -> DevicePoll {
        state.withLock { state in
            guard var grant = state.devices[deviceCode], grant.clientID == clientID else { return .invalid }
            let now = WallClock.millis()
            defer { state.devices[deviceCode]?.lastPollMillis = now }
            if grant.slowDownRequested || (grant.lastPollMillis.map { now - $0 < grant.intervalMillis } ?? false) {
                grant.slowDownRequested = false
                grant.intervalMillis += slowDownMillis
                state.devices[deviceCode] = grant
                return .slowDown
            }
            if grant.expiresAtMillis <= now, grant.decision != .pending || !pendingAfterExpiry {
                forget(deviceCode, grant, in: &state)
                return .expired
            }
            switch grant.decision {
            case .pending:
                return .pending
            case .denied:
                forget(deviceCode, grant, in: &state)
                return .denied
            case .approved(let user):
                forget(deviceCode, grant, in: &state)
                return .approved(user, clientID: grant.clientID, scope: grant.scope)
            }
        }
    }

    private func forget(_ deviceCode: String, _ grant: DeviceGrant, in state: inout State) {
        state.devices[deviceCode] = nil
        state.deviceCodeByUserCode[grant.userCode] = nil
    }

    /// Upper case, dash in the middle.
    static func normalize(_ userCode: String) -> String {
        let letters = userCode.uppercased().filter { $0.isLetter }
        guard letters.count == 8 else { return userCode.uppercased() }
        return String(letters.prefix(4)) + "-" + String(letters.suffix(4))
    }

    /// Eight consonants as `ABCD-EFGH` (RFC 8628 §6.1: no vowels, no look-alikes).
    private static func makeUserCode() -> String {
        let alphabet = Array("BCDFGHJKLMNPQRSTVWXZ")
        let letters = (0..<8).map { _ in alphabet[Int.random(in: 0..<alphabet.count)] }
        return String(letters.prefix(4)) + "-" + String(letters.suffix(4))
    }
}

extension Data {
    /// Base64url without padding (RFC 7515 §2).
    var base64URLEncoded: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// PKCE (RFC 7636).
enum PKCE {
    /// `BASE64URL(SHA256(ASCII(verifier)))`.
    static func s256(_ verifier: String) -> String {
        Data(SHA256.hash(data: Data(verifier.utf8))).base64URLEncoded
    }

    /// Whether `verifier` is 43–128 unreserved characters (§4.1) and matches `challenge` (§4.6).
    static func verify(_ verifier: String, challenge: String) -> Bool {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        guard (43...128).contains(verifier.count), verifier.unicodeScalars.allSatisfy(unreserved.contains) else { return false }
        return s256(verifier) == challenge
    }
}
