// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import HTTPTypes
import VaultStore

/// When and how the `Requester` follows a redirect. Providers never follow one: a token,
/// login or revocation request that is answered with a 3xx fails instead.
///
/// - Only 301, 302, 303, 307 and 308 with a `Location` are followed, at most
///   `maximumHops` times, and every target must pass `URLPolicy` (no http to a remote
///   host, no user info).
/// - 303, and 301/302 after a POST, become a GET without a body, as browsers do.
/// - Leaving the origin drops, for the rest of the chain, every header but the few that
///   carry nothing of the caller's (``headersKeptAcrossOrigins``): the token, cookies,
///   and any API key or other credential the caller put in a header of its own
///   (`X-Api-Key`) stay with the origin they were meant for. A request that still has a
///   body (307, 308, or 301/302 of a PUT) is never re-sent to another origin: the hop
///   fails instead.
public enum RedirectRule {
    /// The most redirects one request follows.
    public static let maximumHops = 5

    /// The statuses that are followed.
    public static let statuses: Set<Int> = [301, 302, 303, 307, 308]

    /// The only request headers a redirect to another origin keeps; all others are dropped.
    public static let headersKeptAcrossOrigins: [HTTPField.Name] = [.accept, .acceptLanguage, .contentType, .userAgent]

    /// The request (and its body) to send after `response` answered `request`, or nil when
    /// `response` is not a redirect to follow.
    public static func next(
        after request: HTTPRequest, body: [UInt8]?, response: HTTPResponse
    ) throws(AuthError) -> (request: HTTPRequest, body: [UInt8]?)? {
        let status = response.status.code
        guard statuses.contains(status), let location = response.headerFields[.location] else { return nil }
        guard let origin = request.url,
            !location.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "\\" }),
            let target = URL(string: location, relativeTo: origin)?.absoluteURL
        else {
            throw .server(status: status, message: "the redirect's Location is not a usable URL")
        }
        do throws(AuthError) {
            try URLPolicy.check(target)
        } catch {
            // The server chose this target: a server error, not the user's bad input.
            throw .server(status: status, message: "refusing its redirect: \(error.description)")
        }
        var next = request
        var nextBody = body
        // URLPolicy passed: an absolute http(s) URL with a host, which HTTPTypes can take apart.
        next.url = target
        if status == 303 || ((status == 301 || status == 302) && request.method == .post) {
            if next.method != .head { next.method = .get }
            nextBody = nil
            next.headerFields[.contentType] = nil
            next.headerFields[.contentLength] = nil
        }
        if !URLPolicy.sameOrigin(origin, target) {
            if nextBody != nil {
                let origin = Origin(target).map(\.description) ?? "another host"
                throw .server(
                    status: status,
                    message: "redirected to another origin (\(TextEscaping.escaped(origin))); vault does not re-send a request body there")
            }
            next.headerFields = HTTPFields(next.headerFields.filter { headersKeptAcrossOrigins.contains($0.name) })
        }
        return (next, nextBody)
    }

    /// The error for a credential request (login, refresh, revocation) answered with a
    /// redirect, which is never followed; nil when `response` is not a 3xx.
    static func refusal(_ response: HTTPResponse, what: String) -> AuthError? {
        guard response.status.kind == .redirection else { return nil }
        return .server(
            status: response.status.code,
            message: "\(what) was answered with a redirect (\(response.status.code)); vault never follows redirects with credentials")
    }
}
