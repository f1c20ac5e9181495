// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AsyncHTTPClient
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Words a failed connection for a person: what failed (resolving the host, connecting
/// to host and port) and what to check, never the type name of the library that failed
/// (`NIOConnectionError`, `SocketAddressError.UnknownHost`, `HTTPClientError…`).
///
/// `vault: network error: cannot connect to 127.0.0.1:9: connection refused; is the server running?`
enum ConnectionFailure {
    /// The sentence for `error`, met while exchanging with `host` on `port`; nil when it
    /// is not a connection failure this type knows.
    static func message(for error: any Error, host: String, port: Int) -> String? {
        let place = "\(host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host):\(port)"
        if let error = error as? NIOConnectionError {
            if let first = error.connectionErrors.first {
                return message(for: first.error, host: host, port: port) ?? "cannot connect to \(place)"
            }
            return "cannot resolve host \(host); check its spelling and the network"
        }
        if error is SocketAddressError.UnknownHost || error is SocketAddressError {
            return "cannot resolve host \(host); check its spelling and the network"
        }
        if let error = error as? IOError { return connectFailure(errno: error.errnoCode, place: place) }
        if let error = error as? ChannelError, case .connectTimeout = error {
            return "cannot connect to \(place): no answer to the connection attempt"
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return "cannot connect to \(place): no answer to the connection attempt"
            case .remoteConnectionClosed: return "\(place) closed the connection before it answered"
            default: return nil
            }
        }
        return nil
    }

    /// A connect(2) failure with `errno`.
    private static func connectFailure(errno code: Int32, place: String) -> String {
        switch code {
        case ECONNREFUSED: "cannot connect to \(place): connection refused; is the server running?"
        case ECONNRESET, EPIPE: "\(place) closed the connection before it answered"
        case ETIMEDOUT: "cannot connect to \(place): no answer to the connection attempt"
        default: "cannot connect to \(place): \(String(cString: strerror(code)).lowercased())"
        }
    }

    /// A library error's text without its type name: `HTTPClientError.remoteConnectionClosed`
    /// becomes `remote connection closed`; other text is returned as it is.
    static func withoutTypeName(_ text: String) -> String {
        guard let dot = text.firstIndex(of: "."), text[..<dot].hasSuffix("Error"),
            text[..<dot].allSatisfy({ $0.isLetter || $0.isNumber })
        else { return text }
        let rest = text[text.index(after: dot)...]
        let name = rest.prefix { $0.isLetter || $0.isNumber }
        var words = ""
        for character in name {
            if character.isUppercase, !words.isEmpty { words.append(" ") }
            words.append(Character(character.lowercased()))
        }
        return words + rest.dropFirst(name.count)
    }
}
