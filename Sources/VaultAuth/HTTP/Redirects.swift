// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
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
    public static let headersKeptAcrossOrigins = ["Accept", "Accept-Language", "Content-Type", "User-Agent"]

    /// The request to send after `response` answered `request`, or nil when `response` is
    /// not a redirect to follow.
    public static func next(after request: HTTPRequest, response: HTTPResponse) throws(AuthError) -> HTTPRequest? {
        guard statuses.contains(response.status), let location = response.header("Location") else { return nil }
        guard !location.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "\\" }),
            let target = URL(string: location, relativeTo: request.url)?.absoluteURL
        else {
            throw .server(status: response.status, message: "the redirect's Location is not a usable URL")
        }
        do throws(AuthError) {
            try URLPolicy.check(target)
        } catch {
            // The server chose this target: a server error, not the user's bad input.
            throw .server(status: response.status, message: "refusing its redirect: \(error.description)")
        }
        var next = request
        next.url = target
        if response.status == 303 || ((response.status == 301 || response.status == 302) && request.method == "POST") {
            if next.method != "HEAD" { next.method = "GET" }
            next.body = nil
            next = next.setting("Content-Type", to: nil).setting("Content-Length", to: nil)
        }
        if !URLPolicy.sameOrigin(request.url, target) {
            if next.body != nil {
                let origin = Origin(target).map(\.description) ?? "another host"
                throw .server(
                    status: response.status,
                    message: "redirected to another origin (\(TextEscaping.escaped(origin))); vault does not re-send a request body there")
            }
            next.headers.removeAll { field in !headersKeptAcrossOrigins.contains { HTTPFieldName.same($0, field.name) } }
        }
        return next
    }

    /// The error for a credential request (login, refresh, revocation) answered with a
    /// redirect, which is never followed; nil when `response` is not a 3xx.
    static func refusal(_ response: HTTPResponse, what: String) -> AuthError? {
        guard (300..<400).contains(response.status) else { return nil }
        return .server(
            status: response.status,
            message: "\(what) was answered with a redirect (\(response.status)); vault never follows redirects with credentials")
    }
}
