// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Hummingbird

/// Turns every error that escapes a route (unknown path, wrong method, anything thrown)
/// into a `{"code","message"}` JSON reply, so no reply of this server lacks a JSON body.
struct JSONErrorMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            let code = Int(error.status.code)
            return HTTP.error(code, Self.message(for: code))
        } catch {
            return HTTP.error(500, AuthServerMessages.internalError)
        }
    }

    /// The message for a status produced outside the routes.
    static func message(for code: Int) -> String {
        switch code {
        case 404: AuthServerMessages.notFound
        case 405: AuthServerMessages.methodNotAllowed
        case 413: AuthServerMessages.bodyTooLarge
        case 500...: AuthServerMessages.internalError
        default: AuthServerMessages.malformedJSON
        }
    }
}
