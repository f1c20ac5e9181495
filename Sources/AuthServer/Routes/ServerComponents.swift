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
    /// Sign in with Apple, when ``AuthServerConfiguration/appleClients`` names a client.
    let apple: AppleService?

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
        if let apple {
            AppleRoutes(components: self, apple: apple).add(to: router)
        }
        if configuration.testControls {
            TestControlRoutes(components: self).add(to: router)
        }
        return router
    }

    /// The error body of a faulted reply: `/api` `{"code","message"}`, RFC 6749 §5.2
    /// `{"error","error_description"}`, or Sign in with Apple's `{"error"}`.
    enum FaultErrorShape: Sendable {
        case api
        case oauth
        case apple
    }

    /// Applies an injected refresh fault, if any: returns the reply to send instead of
    /// processing the request, or `nil` to go on normally. Counts `refreshAttempts`
    /// and `faultedRefreshes`.
    func refreshFaultReply(oauth: Bool) async -> Response? {
        await refreshFaultReply(shape: oauth ? .oauth : .api)
    }

    /// ``refreshFaultReply(oauth:)`` with errors of `shape`. A request that is no refresh
    /// (`isRefresh` false: Sign in with Apple's code exchange) takes the fault (and counts
    /// down ``RefreshFaults/Setting/remaining``) but no refresh counter.
    func refreshFaultReply(shape: FaultErrorShape, isRefresh: Bool = true) async -> Response? {
        if isRefresh { stats.increment(\.refreshAttempts) }
        let setting = faults.claim()
        if setting.mode != .normal, isRefresh { stats.increment(\.faultedRefreshes) }
        switch setting.mode {
        case .normal:
            return nil
        case .status500:
            return serverError(shape)
        case .emptyStatus400:
            return Response(status: .badRequest)
        case .emptyStatus401:
            return Response(status: .unauthorized)
        case .garbage:
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: "<html>garbage, not JSON{")))
        case .hang:
            // Ends early when the server shuts down, so stopping never waits for a hang.
            let hang = Duration.milliseconds(Int64(setting.hangSeconds * 1000))
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: hang) }
            return serverError(shape)
        case .stallBody:
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

    private func serverError(_ shape: FaultErrorShape) -> Response {
        switch shape {
        case .api:
            HTTP.error(500, AuthServerMessages.internalError)
        case .oauth:
            HTTP.json(OAuthError(error: .serverError, description: AuthServerMessages.internalError), status: .internalServerError)
        case .apple:
            HTTP.json(AppleErrorReply(error: .serverError), status: .internalServerError)
        }
    }
}
