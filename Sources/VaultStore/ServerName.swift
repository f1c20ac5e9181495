// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import FoundationEssentials

/// How vault names a server in its items.
public enum ServerName {
    /// A URL with its scheme and host lower-cased and no trailing slash; anything that is
    /// not a URL unchanged. `HTTPS://API.Example.com/` becomes `https://api.example.com`.
    public static func normalized(_ server: String) -> String {
        guard server.contains("://"), var components = URLComponents(string: server), let scheme = components.scheme,
            components.host != nil
        else { return server }
        components.scheme = scheme.lowercased()
        components.host = components.host?.lowercased()
        var text = components.string ?? server
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
