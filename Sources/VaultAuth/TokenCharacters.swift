// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// Which strings vault accepts as tokens from a server.
///
/// A token travels in an `Authorization` header, in a form body and, for `vault token`,
/// to a terminal or a pipe. A server that hands out a token with a control character, a
/// space or a non-ASCII byte could split a header, drive a terminal (escape sequences) or
/// make an HTTP library print the token in an error. So a token must be visible ASCII
/// (`%x21-7E`: RFC 6750's `b64token` and RFC 6749's `VSCHAR` without the space), and at
/// most 16 KiB; anything else is refused when it arrives, never stored, never shown.
public enum TokenCharacters {
    /// The longest token accepted.
    public static let maximumLength = 16 * 1024

    /// True when `token` is non-empty, at most `maximumLength` bytes, and visible ASCII.
    public static func isAcceptable(_ token: String) -> Bool {
        let bytes = token.utf8
        return !bytes.isEmpty && bytes.count <= maximumLength && bytes.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// The error for a refused token; it never contains the token.
    static func refusal(_ which: String, status: Int) -> AuthError {
        .server(
            status: status,
            message: "the server sent \(which) with characters no token may have (a control character, a space, non-ASCII) "
                + "or over \(maximumLength) bytes; it was not stored")
    }
}
