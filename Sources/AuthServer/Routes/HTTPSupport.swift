// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Hummingbird

/// Building replies and reading requests, shared by all routes.
enum HTTP {
    /// Encoder for every JSON reply (stable key order helps debugging).
    static func encode<T: Encodable>(_ value: T) -> ByteBuffer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data(#"{"code":500,"message":"internal server error"}"#.utf8)
        return ByteBuffer(bytes: data)
    }

    /// A JSON reply.
    static func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        fields[.cacheControl] = "no-store"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: encode(value)))
    }

    /// A `{"code","message"}` error reply.
    static func error(_ status: Int, _ message: String) -> Response {
        json(ErrorResponse(code: status, message: message), status: HTTPResponse.Status(code: status))
    }

    /// The reply for an ``AuthFailure`` on the `/api` endpoints.
    static func error(_ failure: AuthFailure) -> Response {
        error(failure.status, failure.message)
    }

    /// The media type of the request (`type/subtype`, lower-cased, parameters dropped).
    static func mediaType(of request: Request) -> String? {
        guard let value = request.headers[.contentType] else { return nil }
        let type = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return type.trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// The token of an `Authorization: Bearer <token>` header, if there is exactly one such header.
    static func bearerToken(of request: Request) -> String? {
        let values = request.headers[values: .authorization]
        guard values.count == 1, let value = values.first else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    /// Reads the whole body, refusing more than `limit` bytes.
    static func body(of request: Request, limit: Int) async -> ByteBuffer? {
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > limit {
            return nil
        }
        return try? await request.body.collect(upTo: limit)
    }
}
