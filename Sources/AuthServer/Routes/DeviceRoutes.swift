// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Hummingbird

/// `{"device_code","user_code","verification_uri","verification_uri_complete","expires_in","interval"}`
/// (RFC 8628 §3.2).
struct DeviceAuthorizationResponse: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey {
        case deviceCode = "device_code"
        case userCode = "user_code"
        case verificationURI = "verification_uri"
        case verificationURIComplete = "verification_uri_complete"
        case expiresIn = "expires_in"
        case interval
    }

    var deviceCode: String
    var userCode: String
    var verificationURI: String
    var verificationURIComplete: String
    var expiresIn: Int
    var interval: Int
}

/// The device grant (RFC 8628): `POST /oauth/device_authorization` (client authentication as
/// at the token endpoint), and the verification page `GET /device` / `POST /device` where
/// the user types the code, signs in and allows or denies.
struct DeviceRoutes: Sendable {
    /// The grant type of the device-code poll.
    static let grantType = "urn:ietf:params:oauth:grant-type:device_code"

    let components: ServerComponents

    func add(to router: Router<BasicRequestContext>) {
        router.post("/oauth/device_authorization") { request, _ in
            await authorize(request)
        }
        router.get("/device") { request, _ in
            form(userCode: HTMLPage.query(of: request)["user_code"], error: nil)
        }
        router.post("/device") { request, _ in
            await answer(request)
        }
    }

    private func authorize(_ request: Request) async -> Response {
        let support = OAuthRequestSupport(components: components)
        do {
            let form = try await support.parameters(of: request)
            let clientID = try support.authenticateClient(request, form: form)
            let configuration = components.configuration
            let issued = components.grants.issueDevice(
                clientID: clientID, scope: form["scope"].flatMap { $0.isEmpty ? nil : $0 },
                lifetimeMillis: Int64((configuration.deviceCodeLifetime * 1000).rounded()),
                intervalMillis: Int64((configuration.deviceInterval * 1000).rounded()))
            components.stats.increment(\.deviceAuthorizations)
            let verification = components.service.identity.baseURL + "/device"
            return HTTP.json(
                DeviceAuthorizationResponse(
                    deviceCode: issued.deviceCode, userCode: issued.userCode, verificationURI: verification,
                    verificationURIComplete: verification + "?user_code=" + issued.userCode,
                    expiresIn: Int(configuration.deviceCodeLifetime.rounded(.up)),
                    interval: max(1, Int(configuration.deviceInterval.rounded(.up)))))
        } catch let failure as OAuthFailure {
            return support.reply(failure)
        } catch {
            return support.reply(OAuthFailure(code: .serverError, description: AuthServerMessages.internalError))
        }
    }

    private func answer(_ request: Request) async -> Response {
        guard let fields = await HTMLPage.form(of: request, limit: components.configuration.maxBodySize),
            let userCode = fields["user_code"], !userCode.isEmpty
        else {
            return form(userCode: nil, error: "enter the code shown on your device")
        }
        guard fields["decision"] == "allow" else {
            guard components.grants.decide(userCode: userCode, decision: .denied) else {
                return form(userCode: userCode, error: "unknown or expired code")
            }
            components.stats.increment(\.authorizationDenials)
            return HTMLPage.page(title: "Request denied", body: "<p>The device was not signed in.</p>")
        }
        guard let login = fields["login"], let password = fields["password"],
            let user = components.service.users.authenticate(login: login, password: password)
        else {
            components.stats.increment(\.failedLogins)
            return form(userCode: userCode, error: AuthServerMessages.wrongLoginOrPassword)
        }
        guard components.grants.decide(userCode: userCode, decision: .approved(user)) else {
            return form(userCode: userCode, error: "unknown or expired code")
        }
        components.stats.increment(\.authorizations)
        return HTMLPage.page(title: "Device signed in", body: "<p>You may close this page and return to your device.</p>")
    }

    /// The verification form.
    private func form(userCode: String?, error: String?) -> Response {
        let message = HTMLPage.errorLine(error)
        let body = """
            \(message)<form method="post" action="/device">
            <label>Code <input name="user_code" value="\(HTMLPage.escape(userCode ?? ""))"></label>
            \(HTMLPage.credentialsAndDecision)
            </form>
            """
        return HTMLPage.page(title: "Sign in a device", body: body)
    }
}

/// Token revocation (RFC 7009), `POST /oauth/revoke` (`token`, `token_type_hint`; client
/// authentication as at the token endpoint). A revoked refresh token is refused afterwards
/// (`invalid_grant`), a revoked access token gets 401; unknown tokens answer 200 (§2.2).
struct RevocationEndpoint: Sendable {
    let components: ServerComponents

    func add(to router: Router<BasicRequestContext>) {
        router.post("/oauth/revoke") { request, _ in
            await revoke(request)
        }
    }

    private func revoke(_ request: Request) async -> Response {
        let support = OAuthRequestSupport(components: components)
        do {
            let form = try await support.parameters(of: request)
            let clientID = try support.authenticateClient(request, form: form)
            guard let token = form["token"], !token.isEmpty else {
                throw OAuthFailure(code: .invalidRequest, description: "missing parameter: token")
            }
            guard await components.service.revoke(token: token, clientID: clientID) == .done else {
                throw OAuthFailure(code: .unauthorizedClient, description: "the token was issued to another client")
            }
            components.stats.increment(\.revocations)
            var headers = HTTPFields()
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers)
        } catch let failure as OAuthFailure {
            return support.reply(failure)
        } catch {
            return support.reply(OAuthFailure(code: .serverError, description: AuthServerMessages.internalError))
        }
    }
}
