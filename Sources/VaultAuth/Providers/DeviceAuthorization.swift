// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import HTTPTypes
import VaultStore

/// The device authorization response (RFC 8628 §3.2): what a person needs to sign the
/// device in elsewhere, and how the device polls.
public struct DeviceAuthorization: Sendable, Equatable {
    /// The code the device polls with; a credential, never shown.
    package let deviceCode: String
    /// The code the person types, exactly as the server sent it.
    public let userCode: String
    /// Where the person goes.
    public let verificationURI: String
    /// The same page with the code filled in, when the server offers one.
    public let verificationURIComplete: String?
    /// How long the codes live (seconds, from the response).
    public let expiresIn: TimeInterval
    /// The polling interval the server asked for (seconds; 5 when it did not say).
    public let interval: TimeInterval
}

/// One poll of the token endpoint with a device code (RFC 8628 §3.4, §3.5).
public enum DevicePoll: Sendable, Equatable {
    /// The person allowed it: the tokens.
    case approved(TokenSet)
    /// `authorization_pending`: ask again after the interval.
    case pending
    /// `slow_down`: ask again after the interval plus 5 seconds, for this and every later poll.
    case slowDown
}

extension OAuth2Provider {
    /// The device grant's poll `grant_type`.
    static let deviceGrantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// Asks `deviceURL` for a device and user code (RFC 8628 §3.1), with the provider's scope.
    /// The text fields must be printable: a code or URI with control characters is refused
    /// (`.server`). The person is sent to the URIs as they are, so `verification_uri` and
    /// `verification_uri_complete` (when sent) must pass ``isVerificationURL(_:)``: https,
    /// or http to a loopback host, without user info (`https://accounts.example.com@evil.example/`
    /// reads as the provider but leads to `evil.example`); a response with any other is
    /// refused (`.server`) and nothing is shown.
    public func requestDeviceAuthorization(at deviceURL: URL) async throws(AuthError) -> DeviceAuthorization {
        var fields: [(String, String)] = []
        if let scope { fields.append(("scope", scope)) }
        let (response, body) = try await clientPost(deviceURL, fields)
        guard response.status.kind == .successful else {
            throw Self.classify(response, body: body, endpoint: "the device authorization endpoint")
        }
        guard let answer = OAuthJSON.decode(DeviceAuthorizationResponse.self, body),
            TokenCharacters.isAcceptable(answer.deviceCode), Self.isPrintable(answer.userCode, limit: 64),
            let verification = answer.verificationURI?.value ?? answer.verificationURL?.value, Self.isWebURL(verification)
        else {
            throw .server(status: response.status.code, message: "the device authorization response is not the expected JSON")
        }
        let complete = answer.verificationURIComplete?.value
        guard Self.isVerificationURL(verification), complete.map(Self.isVerificationURL) ?? true else {
            throw .server(
                status: response.status.code,
                message: "the device authorization response sends the person to a URI that is not https (or http to loopback) "
                    + "or that hides its host behind user info; refusing to show it")
        }
        let expiresIn = try Self.lifetime(answer.expiresIn, status: response.status.code)
        // A number or a quoted one, as expires_in; anything else is the RFC's default of 5 s.
        let interval = answer.interval?.value?.seconds ?? 5
        return DeviceAuthorization(
            deviceCode: answer.deviceCode, userCode: answer.userCode, verificationURI: verification, verificationURIComplete: complete,
            expiresIn: expiresIn, interval: interval.isFinite ? min(max(interval, 1), 60) : 5)
    }

    /// Polls the token endpoint once. `access_denied` and `expired_token` are
    /// ``AuthError/authentication(_:providerCode:remedy:)`` with that code; other errors as ``classify(_:)``.
    public func pollDevice(_ authorization: DeviceAuthorization) async throws(AuthError) -> DevicePoll {
        do throws(AuthError) {
            return .approved(
                try await tokenRequest(
                    [("grant_type", Self.deviceGrantType), ("device_code", authorization.deviceCode)], previous: nil))
        } catch {
            switch error.providerCode {
            case "authorization_pending": return .pending
            case "slow_down": return .slowDown
            case "access_denied": throw .authentication("the sign-in was denied", providerCode: "access_denied")
            case "expired_token": throw .authentication("the device code expired before anyone signed in", providerCode: "expired_token")
            default: throw error
            }
        }
    }

    /// True for text of at most `limit` characters with no control characters.
    static func isPrintable(_ text: String, limit: Int) -> Bool {
        !text.isEmpty && text.count <= limit && !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// True for an absolute http(s) URL of printable characters, at most 2 KiB, with no space
    /// and no backslash (a browser reads `\` as `/`, so it could reach another host than the
    /// one Foundation parsed and URLPolicy checked; found by the `discovery` fuzz target).
    static func isWebURL(_ text: String) -> Bool {
        guard isPrintable(text, limit: 2048), !text.contains(" "), !text.contains("\\"), let url = URL(string: text), url.host != nil,
            let scheme = url.scheme?.lowercased()
        else { return false }
        return scheme == "https" || scheme == "http"
    }

    /// True for a URL a person may be sent to: ``isWebURL(_:)``, and allowed by ``URLPolicy``
    /// (https, or http to a loopback host; no user info).
    static func isVerificationURL(_ text: String) -> Bool {
        guard isWebURL(text), let url = URL(string: text) else { return false }
        return (try? URLPolicy.check(url)) != nil
    }
}
