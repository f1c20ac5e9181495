// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// A server URL split the way GNOME's network-password schema records it, the way git's
/// libsecret credential helper writes it, `protocol://server[:port][/object]`: `protocol` the
/// scheme, `server` the host alone, `port` and `object` (the path without its leading slash) only
/// when the URL has them. Only a URL in the canonical spelling (the one the attributes give back
/// exactly) is split; any other server string is not a network address and is stored under its
/// whole name. The attributes and the canonical spelling: docs/secret-service.md, "How vault's
/// items look in the keyring".
struct NetworkAddress: Equatable {
    var scheme: String
    var host: String
    var port: String?
    var object: String?

    /// Splits `server`, or nil when it is not a URL in the canonical spelling.
    init?(server: String) {
        guard let colon = server.firstIndex(of: ":"), server[colon...].hasPrefix("://") else { return nil }
        let scheme = server[..<colon]
        guard let first = scheme.unicodeScalars.first, ("a"..."z").contains(first),
            scheme.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0) })
        else { return nil }
        let rest = server[server.index(colon, offsetBy: 3)...]
        guard !rest.contains(where: { "?#@".contains($0) }) else { return nil }

        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count)
        var host = authority
        var port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                port = after.dropFirst()
            }
            guard host.dropFirst().dropLast().allSatisfy({ $0.isHexDigit || ":.".contains($0) }) else { return nil }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty, host == host.lowercased(), host.hasPrefix("[") || !host.contains(where: { "[]\\".contains($0) })
        else { return nil }
        if let port {
            guard let first = port.first, first != "0", port.count <= 5, port.allSatisfy({ ("0"..."9").contains($0) }),
                let number = Int(port), number <= 65535
            else { return nil }
        }
        guard path.isEmpty || path.count > 1 else { return nil }  // "https://host/": an empty path
        self.scheme = String(scheme)
        self.host = String(host)
        self.port = port.map(String.init)
        self.object = path.isEmpty ? nil : String(path.dropFirst())
    }

    /// The URL that an item's `protocol`, `server`, `port` and `object` attributes spell
    /// (nil without `protocol` and `server`). It is only a candidate: the caller checks that
    /// the URL's attributes are exactly the item's.
    static func url(from attributes: [String: String]) -> String? {
        guard let scheme = attributes[LibSecretSchema.Attribute.protocol],
            let host = attributes[LibSecretSchema.Attribute.server]
        else { return nil }
        var url = "\(scheme)://\(host)"
        if let port = attributes[LibSecretSchema.Attribute.port] { url += ":\(port)" }
        if let object = attributes[LibSecretSchema.Attribute.object] { url += "/\(object)" }
        return url
    }

    /// The URL again, exactly as `init?(server:)` was given it.
    var server: String {
        var url = "\(scheme)://\(host)"
        if let port { url += ":\(port)" }
        if let object { url += "/\(object)" }
        return url
    }

    /// `protocol`, `server`, and `port`/`object` when present.
    var attributes: [String: String] {
        var attributes = [LibSecretSchema.Attribute.protocol: scheme, LibSecretSchema.Attribute.server: host]
        attributes[LibSecretSchema.Attribute.port] = port
        attributes[LibSecretSchema.Attribute.object] = object
        return attributes
    }
}
