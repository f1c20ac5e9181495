// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Hummingbird

/// The minimal HTML pages of the browser endpoints, and redirects.
enum HTMLPage {
    /// A `text/html` page.
    static func page(title: String, body: String, status: HTTPResponse.Status = .ok) -> Response {
        let html = """
            <!DOCTYPE html>
            <html><head><meta charset="utf-8"><title>\(escape(title))</title></head>
            <body><h1>\(escape(title))</h1>
            \(body)
            </body></html>
            """
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// An error page (400 unless told); never a redirect.
    static func error(_ message: String, status: HTTPResponse.Status = .badRequest) -> Response {
        page(title: "Request refused", body: "<p class=\"error\">\(escape(message))</p>", status: status)
    }

    /// A `302 Found` to `location`.
    static func redirect(to location: String) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        headers[.cacheControl] = "no-store"
        return Response(status: .found, headers: headers)
    }

    /// `<input type="hidden">` for each field with a value.
    /// A sign-in form's error line (empty without an error), escaped.
    static func errorLine(_ error: String?) -> String {
        error.map { "<p class=\"error\">\(escape($0))</p>\n" } ?? ""
    }

    /// The login and password fields and the Allow / Deny buttons (`decision`) that the
    /// consent page and the device page share.
    static let credentialsAndDecision = """
        <label>Login <input name="login" autocomplete="username"></label>
        <label>Password <input name="password" type="password" autocomplete="current-password"></label>
        <button type="submit" name="decision" value="allow">Allow</button>
        <button type="submit" name="decision" value="deny">Deny</button>
        """

    static func hiddenFields(_ fields: [(String, String?)]) -> String {
        fields.compactMap { name, value in
            value.map { "<input type=\"hidden\" name=\"\(escape(name))\" value=\"\(escape($0))\">" }
        }.joined(separator: "\n")
    }

    /// HTML text and attribute escaping.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&#39;")
    }

    /// Percent-encoding for a query component.
    static func queryEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// The query parameters of `request` as a form (`+` is a space; the first of repeated names wins).
    static func query(of request: Request) -> [String: String] {
        var query: [String: String] = [:]
        for pair in FormURLEncoding.parse(request.uri.query ?? "") ?? [] where query[pair.name] == nil {
            query[pair.name] = pair.value
        }
        return query
    }

    /// The form fields of a `POST` body; `nil` if it is not a readable form.
    static func form(of request: Request, limit: Int) async -> [String: String]? {
        guard HTTP.mediaType(of: request) == "application/x-www-form-urlencoded",
            let body = await HTTP.body(of: request, limit: limit),
            let text = String(validating: body.readableBytesView, as: UTF8.self),
            let pairs = FormURLEncoding.parse(text)
        else { return nil }
        var form: [String: String] = [:]
        for pair in pairs where form[pair.name] == nil { form[pair.name] = pair.value }
        return form
    }
}

/// Loopback redirect URIs for native apps (RFC 8252 §7.3).
enum LoopbackRedirect {
    /// Whether `uri` is exactly `http://127.0.0.1:PORT/callback` (any port, no query or
    /// fragment): the only redirect URI this server accepts for authorization codes.
    static func isAcceptedCallback(_ uri: String) -> Bool {
        guard let components = URLComponents(string: uri), components.scheme == "http", components.host == "127.0.0.1",
            let port = components.port, (1...65535).contains(port), components.user == nil, components.password == nil,
            components.path == "/callback", components.query == nil, components.fragment == nil
        else { return false }
        return uri == "http://127.0.0.1:\(port)/callback"
    }

    /// Whether `uri` is an `http` URL on a loopback address (`127.0.0.1`, `[::1]`, `localhost`).
    static func isLoopback(_ uri: String) -> Bool {
        guard let components = URLComponents(string: uri), components.scheme == "http", components.percentEncodedUser == nil,
            let host = components.host
        else { return false }
        return ["127.0.0.1", "::1", "[::1]", "localhost"].contains(host)
    }
}
