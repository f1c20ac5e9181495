// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation

/// `application/x-www-form-urlencoded` parsing (as RFC 6749 uses it).
enum FormURLEncoding {
    /// The name/value pairs of `text` in order; `nil` if a component has bad percent-encoding.
    static func parse(_ text: String) -> [(name: String, value: String)]? {
        var pairs: [(name: String, value: String)] = []
        for field in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]) else { return nil }
            let value = parts.count > 1 ? decode(parts[1]) : ""
            guard let value else { return nil }
            pairs.append((name, value))
        }
        return pairs
    }

    /// Decodes one component: `+` is a space, `%XX` a byte of UTF-8.
    static func decode(_ component: Substring) -> String? {
        String(component).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
