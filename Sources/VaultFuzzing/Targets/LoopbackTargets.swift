// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1
import VaultAuth

/// The loopback redirect listener (``LoopbackRedirectListener``) answering the raw bytes a
/// browser, or anything else on the machine, sends to it: NIO's HTTP server pipeline and the
/// listener's own handler on an `EmbeddedChannel`, with a fixed state, start link and cookie.
enum LoopbackTargets {
    static let port = 49152
    static let state = "fuzz-state-0123456789abcdefghijklmnopqrstuvw"
    static let startToken = "fuzz-start-0123456789abcdefghijklmnopqrstuvwx"
    static let cookie = "fuzz-cookie-0123456789abcdefghijklmnopqrstuv"
    static let authorizationURL = URL(string: "https://accounts.example.com/authorize?client_id=vault-fuzz") ?? URL(fileURLWithPath: "/")

    /// Invariant: a callback is taken only from a `GET` whose path is `/callback`, with one
    /// `Host: 127.0.0.1:PORT`, the start link's cookie, and exactly the expected `state` once
    /// in its query, and it is the query's `code` or `error`; it gets a 200. The sign-in ends
    /// (403) only for a `/callback` without the cookie or a second start; every other request
    /// gets a 302 (the start link), a 400 or a 404. Requests may be pipelined: exactly one
    /// 200 answers a taken callback, the request it answers is the one checked, and the
    /// other answers are refusals or 403s.
    static let request = FuzzTarget(
        name: "loopback-request",
        summary: "raw HTTP to the sign-in listener: only the exact redirect (path, Host, cookie, state) is taken"
    ) { bytes throws(InvariantViolation) in
        let (taken, statuses) = try answer(bytes)
        let refusals: Set<Int> = [302, 400, 404]
        switch taken {
        case .callback(let callback)?:
            try require(statuses.filter { $0 == 200 }.count == 1, "a taken callback got \(statuses)")
            try require(statuses.allSatisfy { $0 == 200 || $0 == 403 || refusals.contains($0) }, "beside a taken callback: \(statuses)")
            // The request answered 200 is the one that earned it: answers come in order.
            let index = statuses.firstIndex(of: 200) ?? 0
            let heads = requestHeads(bytes)
            try require(index < heads.count, "a callback answered as request \(index + 1) of \(heads.count)")
            try checkCallback(callback, request: heads[index])
        case .linkReused?:
            try require(statuses.contains(403), "an ended sign-in got \(statuses)")
            try require(statuses.allSatisfy { $0 == 403 || refusals.contains($0) }, "beside an ended sign-in: \(statuses)")
        case nil:
            try require(statuses.allSatisfy(refusals.contains), "a refused request got \(statuses)")
            if statuses.contains(302) { try require(contains(bytes, startToken), "a 302 for a request without the start link") }
        }
    }

    /// `bytes` cut at the start of each pipelined request: at the start and after each blank
    /// line that ends a head. (The listener's requests that matter, GETs, have no body; a
    /// body before a callback would shift the cut, and the check would then fail loudly.)
    static func requestHeads(_ bytes: [UInt8]) -> [[UInt8]] {
        var heads: [[UInt8]] = []
        var start = 0
        var index = 0
        while index < bytes.count {
            let crlf = index + 3 < bytes.count && bytes[index..<index + 4].elementsEqual([13, 10, 13, 10])
            let lf = index + 1 < bytes.count && bytes[index] == 10 && bytes[index + 1] == 10
            if crlf || lf {
                let end = index + (crlf ? 4 : 2)
                heads.append(Array(bytes[start..<end]))
                start = end
                index = end
            } else {
                index += 1
            }
        }
        if start < bytes.count { heads.append(Array(bytes[start...])) }
        return heads
    }

    /// What the listener took from `bytes` (a fresh listener's inbox), and the statuses of
    /// its responses in order (none when no request was complete).
    static func answer(_ bytes: [UInt8]) throws(InvariantViolation) -> (taken: CallbackInbox.Outcome?, statuses: [Int]) {
        let inbox = CallbackInbox(state: state, startToken: startToken, cookieValue: cookie)
        inbox.setPort(port, authorizationURL: authorizationURL)
        let channel = EmbeddedChannel()
        do {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
            try channel.pipeline.syncOperations.addHandler(inbox.makeHandler())
        } catch {
            throw InvariantViolation("the pipeline cannot be set up: \(error)")
        }
        _ = try? channel.writeInbound(ByteBuffer(bytes: bytes))
        var answer: [UInt8] = []
        for _ in 0..<64 {
            guard let part = try? channel.readOutbound(as: ByteBuffer.self) else { break }
            answer += Array(part.readableBytesView)
        }
        _ = try? channel.finish()
        return (inbox.taken, statuses(answer))
    }

    /// The status of each response in `answer`: each starts with `HTTP/1.1 NNN `, at the
    /// start or after the previous one (the listener's own bodies never contain that text).
    static func statuses(_ answer: [UInt8]) -> [Int] {
        let marker = Array("HTTP/1.1 ".utf8)
        var found: [Int] = []
        var index = 0
        while index + marker.count + 3 <= answer.count {
            if answer[index..<index + marker.count].elementsEqual(marker),
                index == 0 || answer[index - 1] == UInt8(ascii: "\n")
                    || answer[index - 1] == UInt8(ascii: ">")
            {
                let digits = answer[index + marker.count..<index + marker.count + 3]
                if let status = Int(String(decoding: digits, as: UTF8.self)) { found.append(status) }
                index += marker.count
            } else {
                index += 1
            }
        }
        return found
    }

    /// Reads the request again, apart from NIO and the handler, and checks it earned `callback`.
    static func checkCallback(_ callback: AuthorizationCallback, request bytes: [UInt8]) throws(InvariantViolation) {
        // Empty lines before the request line are ignored (RFC 9112 §2.2), as NIO's parser
        // does; it takes a lone CR for one too.
        let text = String(decoding: bytes, as: UTF8.self).drop { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\r\n" || $0 == "\n" }.map(String.init)
        guard let requestLine = lines.first else { throw InvariantViolation("a callback from no request line") }
        let words = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        try require(words.count == 3 && words[0] == "GET", "a callback from \(requestLine.debugDescription)")
        var target = Substring(words[1])
        if let authority = target.range(of: "//"), target.first != "/" || target.hasPrefix("//") {
            // Absolute form (RFC 9112 §3.2.2): the path starts after the authority.
            target = target[authority.upperBound...].drop { $0 != "/" }
        }
        let beforeFragment = target.prefix { $0 != "#" }
        let path = beforeFragment.prefix { $0 != "?" }
        try require(percentDecoded(path) == "/callback", "a callback from the path \(String(path).debugDescription)")
        let query = beforeFragment.drop { $0 != "?" }.dropFirst()
        var fields: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = formDecoded(parts[0])
            try require(fields[name] == nil, "a callback from a query naming \(name.debugDescription) twice")
            fields[name] = parts.count > 1 ? formDecoded(parts[1]) : ""
        }
        try require(fields["state"] == state, "a callback with the state \(String(describing: fields["state"]))")
        switch callback {
        case .code(let code): try require(fields["error"] == nil && fields["code"] == code && !code.isEmpty, "code is not the query's")
        case .error(let code, let description):
            try require(fields["error"] == code && fields["error_description"] == description, "error is not the query's")
        }
        let headers = lines.dropFirst().prefix { !$0.isEmpty }
        let hosts = headers.filter { $0.lowercased().hasPrefix("host:") }
        try require(
            hosts.count == 1 && hosts[hosts.startIndex].dropFirst(5).trimmingCharacters(in: .whitespaces) == "127.0.0.1:\(port)",
            "a callback with the Host lines \(hosts)")
        let cookies = headers.filter { $0.lowercased().hasPrefix("cookie:") }
        try require(cookies.contains { $0.contains("vault_signin_\(port)=\(cookie)") }, "a callback without the cookie")
    }

    /// `text` with `%XX` decoded, as long as every `%` starts an escape and the result is UTF-8; else `text`.
    static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var input = Array(text.utf8)[...]
        while let byte = input.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard input.count >= 2, let high = hexValue(input[input.startIndex]), let low = hexValue(input[input.startIndex + 1])
            else { return String(text) }
            bytes.append(high << 4 | low)
            input = input.dropFirst(2)
        }
        return String(validating: bytes, as: UTF8.self) ?? String(text)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// A form field: `+` is a space, then percent-decoded.
    static func formDecoded(_ text: Substring) -> String {
        percentDecoded(Substring(text.replacingOccurrences(of: "+", with: " ")))
    }

    static func contains(_ bytes: [UInt8], _ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { bytes[$0..<$0 + needle.count].elementsEqual(needle) }
    }
}
