// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation

/// Adds parameters to a URL's query the way a form does (RFC 3986 unreserved characters
/// kept, everything else percent-encoded, `+` included), keeping the query the URL already
/// has exactly as it is (a provider's `?p=policy` or `%2B` stays what it was).
public enum QueryString {
    /// `url` with `parameters` appended to its query.
    public static func appending(_ parameters: [(String, String)], to url: URL) -> URL {
        guard !parameters.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        let added = parameters.map { "\(FormEncoding.escape($0.0))=\(FormEncoding.escape($0.1))" }.joined(separator: "&")
        let existing = components.percentEncodedQuery ?? ""
        components.percentEncodedQuery = existing.isEmpty ? added : existing + "&" + added
        return components.url ?? url
    }
}
