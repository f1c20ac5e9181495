import Foundation

/// Which URLs VaultAuth may send credentials to.
public enum URLPolicy {
    /// Throws unless `url` is https, or http to a loopback host (127.0.0.0/8, ::1,
    /// localhost): tokens and passwords never travel in clear text over a network.
    public static func check(_ url: URL) throws(AuthError) {
        guard let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            throw .invalidRequest("not an absolute http(s) URL: \(redacted(url))")
        }
        switch scheme {
        case "https": return
        case "http":
            guard isLoopback(host) else {
                throw .invalidRequest("refusing plain http to \(host): use https (http is allowed only to loopback)")
            }
        default:
            throw .invalidRequest("unsupported URL scheme \(scheme)")
        }
    }

    /// True for 127.0.0.0/8, ::1 and localhost.
    public static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare == "::1" || bare.hasSuffix(".localhost") { return true }
        let parts = bare.split(separator: ".")
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// True when both URLs have the same scheme, host and port.
    public static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
            && effectivePort(a) == effectivePort(b)
    }

    static func effectivePort(_ url: URL) -> Int? {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil)
    }

    /// The URL without user info, query or fragment, for messages.
    static func redacted(_ url: URL) -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.user = nil
        components?.password = nil
        components?.query = nil
        components?.fragment = nil
        return components?.string ?? "<url>"
    }
}
