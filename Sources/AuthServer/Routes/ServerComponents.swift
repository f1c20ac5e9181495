// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Hummingbird
import ServiceLifecycle

/// The shared parts every route needs.
struct ServerComponents: Sendable {
    /// The rules.
    let service: AuthService
    /// The live counters.
    let stats: StatsRecorder
    /// The fault switch for the refresh endpoints.
    let faults: RefreshFaults
    /// The configuration the server started with.
    let configuration: AuthServerConfiguration
    /// Authorization codes and device requests.
    let grants: AuthorizationGrants

    /// Builds the router with every route and the JSON error middleware.
    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: JSONErrorMiddleware())
        APIRoutes(components: self).add(to: router)
        OAuthTokenEndpoint(components: self).add(to: router)
        DiscoveryRoutes(components: self).add(to: router)
        AuthorizeRoutes(components: self).add(to: router)
        DeviceRoutes(components: self).add(to: router)
        RevocationEndpoint(components: self).add(to: router)
        if configuration.testControls {
            TestControlRoutes(components: self).add(to: router)
        }
        return router
    }

    /// Applies an injected refresh fault, if any: returns the reply to send instead of
    /// processing the request, or `nil` to go on normally. Counts `refreshAttempts`
    /// and `faultedRefreshes`.
    func refreshFaultReply(oauth: Bool) async -> Response? {
        stats.increment(\.refreshAttempts)
        let setting = faults.claim()
        switch setting.mode {
        case .normal:
            return nil
        case .status500:
            stats.increment(\.faultedRefreshes)
            return serverError(oauth: oauth)
        case .garbage:
            stats.increment(\.faultedRefreshes)
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: "<html>garbage, not JSON{")))
        case .hang:
            stats.increment(\.faultedRefreshes)
            // Ends early when the server shuts down, so stopping never waits for a hang.
            let hang = Duration.milliseconds(Int64(setting.hangSeconds * 1000))
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: hang) }
            return serverError(oauth: oauth)
        case .stallBody:
            stats.increment(\.faultedRefreshes)
            // A success head that promises 512 bytes, then half of them, then silence.
            let hang = Duration.milliseconds(Int64(setting.hangSeconds * 1000))
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[.contentLength] = "512"
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: "{\"accessToken\":\"" + String(repeating: "x", count: 240)))
                    try? await cancelWhenGracefulShutdown { try await Task.sleep(for: hang) }
                    throw CancellationError()
                })
        }
    }

    private func serverError(oauth: Bool) -> Response {
        if oauth {
            return HTTP.json(
                OAuthError(error: .serverError, description: AuthServerMessages.internalError),
                status: .internalServerError)
        }
        return HTTP.error(500, AuthServerMessages.internalError)
    }
}
