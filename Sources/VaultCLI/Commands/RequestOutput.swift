// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultAuth
import VaultStore
import VaultStoreCLI

/// How `vault request` shows an answer: the body on stdout, the failure on stderr, each
/// on lines of their own.
enum ResponseOutput {
    /// Writes `body`: exactly into a pipe or a file; on a terminal with control characters
    /// escaped (a hostile body cannot drive it) and a newline added when it lacks one, so
    /// an error line or the shell's prompt starts on a line of its own.
    static func write(_ body: [UInt8]) {
        guard Terminal.stdoutIsTerminal else { return Terminal.write(body) }
        var shown = Array(TextEscaping.escaped(String(decoding: body, as: UTF8.self), keepingLines: true).utf8)
        if let last = shown.last, last != UInt8(ascii: "\n") { shown.append(UInt8(ascii: "\n")) }
        Terminal.write(shown)
    }

    /// The line for a non-2xx status: its status line, and whose fault it is (a 4xx is a
    /// client error, a 5xx a server error): `HTTP 404 Not Found (client error)`.
    static func failure(status: Int) -> String {
        let line = "HTTP \(status)" + (HTTPReason.phrase(status).map { " " + $0 } ?? "")
        switch status {
        case 400..<500: return "\(line) (client error: the server refused the request)"
        case 500..<600: return "\(line) (server error)"
        default: return "\(line) (not a success)"
        }
    }
}

/// What `--data` implies, as with curl's `-d`: POST when no method is given, and
/// `Content-Type: application/x-www-form-urlencoded` unless a header sets one.
enum RequestBodyDefaults {
    /// `given` upper-cased, else POST with a body and GET without.
    static func method(_ given: String?, hasBody: Bool) -> String {
        given?.uppercased() ?? (hasBody ? "POST" : "GET")
    }

    /// `headers`, with curl's form content type added for a body that has none.
    static func headers(_ headers: [(name: String, value: String)], hasBody: Bool) -> [(name: String, value: String)] {
        guard hasBody, !headers.contains(where: { $0.name.lowercased() == "content-type" }) else { return headers }
        return headers + [("Content-Type", "application/x-www-form-urlencoded")]
    }
}

/// The reason phrases of the statuses a server commonly sends (RFC 9110 §15).
enum HTTPReason {
    static func phrase(_ status: Int) -> String? {
        let phrases: [Int: String] = [
            300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
            307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request", 401: "Unauthorized",
            402: "Payment Required", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 406: "Not Acceptable",
            408: "Request Timeout", 409: "Conflict", 410: "Gone", 411: "Length Required", 412: "Precondition Failed",
            413: "Content Too Large", 414: "URI Too Long", 415: "Unsupported Media Type", 416: "Range Not Satisfiable",
            417: "Expectation Failed", 421: "Misdirected Request", 422: "Unprocessable Content", 423: "Locked",
            425: "Too Early", 426: "Upgrade Required", 428: "Precondition Required", 429: "Too Many Requests",
            431: "Request Header Fields Too Large", 451: "Unavailable For Legal Reasons", 500: "Internal Server Error",
            501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
            505: "HTTP Version Not Supported",
        ]
        return phrases[status]
    }
}
