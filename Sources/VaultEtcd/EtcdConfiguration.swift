// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultStore

/// Where the fleet's etcd is and how to talk to it, from the environment the `vault`
/// command fills from its options (`--etcd-endpoints` is `VAULT_ETCD_ENDPOINTS`, and so on).
///
/// | variable | option | meaning |
/// | --- | --- | --- |
/// | `VAULT_ETCD_ENDPOINTS` | `--etcd-endpoints` | `URL,URL,…`: `https://` (or, to this machine, `http://`) host and port, no path |
/// | `VAULT_ETCD_INSECURE_HTTP=1` | `--etcd-insecure-http` | allow `http://` to another machine (clear text) |
/// | `VAULT_ETCD_PREFIX` | `--etcd-prefix` | the key prefix vault owns (default `/vault/`) |
/// | `VAULT_ETCD_CACERT` | `--etcd-cacert` | PEM file of the CAs that sign the members' certificates |
/// | `VAULT_ETCD_CERT`, `VAULT_ETCD_KEY` | `--etcd-cert`, `--etcd-key` | the client certificate and its key (PEM) |
/// | `VAULT_ETCD_USER` | `--etcd-user` | etcd user name (etcd's own authentication) |
/// | `VAULT_ETCD_PASSWORD_FILE` | `--etcd-password-file` | the file holding that user's password |
/// | `VAULT_ETCD_TIMEOUT` | | seconds an operation may take over every endpoint (default 10) |
/// | `VAULT_ETCD_LOCK_TTL` | | seconds the refresh lock's lease lives without keep-alive (default 5) |
public struct EtcdConfiguration: Sendable, Equatable {
    /// The members' client URLs, tried in order (the last one that answered first).
    public var endpoints: [URL]
    /// The key prefix vault owns; always starts and ends with `/`.
    public var prefix: String
    /// PEM file of trusted CAs for `https` endpoints (nil: the system's).
    public var caFile: String?
    /// The client certificate (PEM) and its private key, for etcd's `--client-cert-auth`.
    public var certificateFile: String?
    public var keyFile: String?
    /// etcd's user name, and the file its password is read from.
    public var user: String?
    public var passwordFile: String?
    /// The bound on one store operation, all endpoints and retries included.
    public var timeout: Duration
    /// The TTL of the refresh lock's lease, in seconds.
    public var lockTTL: Int
    /// True when `http://` endpoints on other machines were explicitly allowed
    /// (`VAULT_ETCD_INSECURE_HTTP=1`): the etcd password, its token and the sealed items
    /// then cross the network in clear text.
    public var insecureHTTP: Bool = false

    /// True when some endpoint is `https://` (the TLS settings are used for those).
    public var usesTLS: Bool { endpoints.contains { $0.scheme == "https" } }

    /// The default prefix.
    public static let defaultPrefix = "/vault/"

    /// Reads and checks the configuration; `.invalidInput` (one line) for anything unusable.
    public static func from(environment: [String: String]) throws(VaultError) -> EtcdConfiguration {
        guard let list = environment["VAULT_ETCD_ENDPOINTS"], !list.isEmpty else {
            throw .invalidInput("the etcd backend needs --etcd-endpoints URL,URL,... (or VAULT_ETCD_ENDPOINTS)")
        }
        var endpoints: [URL] = []
        for raw in list.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            endpoints.append(try endpoint(raw))
        }
        guard endpoints.count <= 16 else { throw .invalidInput("--etcd-endpoints: at most 16 endpoints") }
        let prefix = try prefix(environment["VAULT_ETCD_PREFIX"] ?? defaultPrefix)
        let certificate = nonEmpty(environment["VAULT_ETCD_CERT"])
        let key = nonEmpty(environment["VAULT_ETCD_KEY"])
        guard (certificate == nil) == (key == nil) else {
            throw .invalidInput("--etcd-cert and --etcd-key go together (a client certificate and its private key)")
        }
        let insecureHTTP: Bool
        switch environment["VAULT_ETCD_INSECURE_HTTP"] ?? "" {
        case "", "0": insecureHTTP = false
        case "1": insecureHTTP = true
        default: throw .invalidInput("VAULT_ETCD_INSECURE_HTTP must be 1 (allow http:// to other machines) or 0")
        }
        let plain = endpoints.filter { $0.scheme == "http" }
        let caFile = nonEmpty(environment["VAULT_ETCD_CACERT"])
        if !plain.isEmpty, caFile != nil || certificate != nil {
            // They would be silently unused for those endpoints: the user meant TLS.
            throw .invalidInput(
                "--etcd-cacert, --etcd-cert and --etcd-key are for https:// endpoints, and \(plain[0].absoluteString) is http://: use https://")
        }
        if !insecureHTTP, let remote = plain.first(where: { !isLoopback($0.host ?? "") }) {
            throw .invalidInput(
                "--etcd-endpoints: \(remote.absoluteString) is plain HTTP to another machine: the etcd password, its token and "
                    + "the fleet's items would cross the network in clear text; use https:// (see docs/fleet.md), "
                    + "or allow it with --etcd-insecure-http (VAULT_ETCD_INSECURE_HTTP=1)")
        }
        let user = nonEmpty(environment["VAULT_ETCD_USER"])
        let passwordFile = nonEmpty(environment["VAULT_ETCD_PASSWORD_FILE"])
        guard (user == nil) == (passwordFile == nil) else {
            throw .invalidInput("--etcd-user and --etcd-password-file go together (the password is never an argument)")
        }
        return EtcdConfiguration(
            endpoints: endpoints, prefix: prefix, caFile: caFile, certificateFile: certificate,
            keyFile: key, user: user, passwordFile: passwordFile,
            timeout: try seconds(environment["VAULT_ETCD_TIMEOUT"], name: "VAULT_ETCD_TIMEOUT", default: 10, range: 0.5...600),
            lockTTL: Int(try seconds(environment["VAULT_ETCD_LOCK_TTL"], name: "VAULT_ETCD_LOCK_TTL", default: 5, range: 2...60)),
            insecureHTTP: insecureHTTP)
    }

    /// The endpoints as given, for messages.
    public var endpointList: String { endpoints.map(\.absoluteString).joined(separator: ", ") }

    private static func endpoint(_ raw: String) throws(VaultError) -> URL {
        func refuse(_ why: String = "is not an etcd client URL (http:// or https://host:port, no path)") -> VaultError {
            // A URL with user info may carry a password: never repeat it; nor a huge one.
            let shown =
                raw.contains("@")
                ? "an endpoint with user info (use --etcd-user and --etcd-password-file)"
                : "\"\(TextEscaping.escaped(String(raw.prefix(120))))\(raw.count > 120 ? "…" : "")\""
            return .invalidInput("--etcd-endpoints: \(shown) \(why)")
        }
        guard raw.utf8.count <= 2048, let url = URL(string: raw), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty, host.utf8.count <= 253, url.user == nil, url.password == nil, url.query == nil,
            url.fragment == nil, url.path.isEmpty || url.path == "/"
        else { throw refuse() }
        // The port as written: Foundation drops one too large to parse, and larger than 65535 traps later.
        let authority = raw.drop { $0 != "/" }.dropFirst(2).prefix { $0 != "/" }
        let written = authority.hasSuffix("]") ? "" : String(authority.reversed().prefix { $0 != ":" }.reversed())
        var port: Int?
        if authority.contains(":") && !authority.hasSuffix("]") {
            guard !written.isEmpty, written.count <= 5, written.allSatisfy(\.isASCII), let number = Int(written), (1...65535).contains(number)
            else { throw refuse("has no usable port (1 to 65535)") }
            port = number
        }
        guard port == url.port else { throw refuse() }
        return URL(string: "\(scheme)://\(host.contains(":") ? "[\(host)]" : host)\(port.map { ":\($0)" } ?? "")")!
    }

    /// True for a name of this machine: `localhost` (and names under it), 127.0.0.0/8, ::1.
    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127"
            && octets.allSatisfy { octet in
                !octet.isEmpty && octet.count <= 3 && octet.allSatisfy { $0.isASCII && $0.isNumber } && UInt8(octet) != nil
            }
    }

    private static func prefix(_ raw: String) throws(VaultError) -> String {
        // No control, format (bidi) or separator characters: the prefix is shown in messages.
        let shown: (Unicode.Scalar) -> Bool = { scalar in
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: false
            default: true
            }
        }
        guard raw.hasPrefix("/"), raw.utf8.count <= 256, raw.unicodeScalars.allSatisfy(shown) else {
            throw .invalidInput("--etcd-prefix must start with / (at most 256 bytes, no control characters), like /vault/")
        }
        return raw.hasSuffix("/") ? raw : raw + "/"
    }

    private static func seconds(
        _ raw: String?, name: String, default fallback: Double, range: ClosedRange<Double>
    ) throws(VaultError)
        -> Duration
    {
        guard let raw, !raw.isEmpty else { return .milliseconds(Int(fallback * 1000)) }
        guard let value = Double(raw), value.isFinite, range.contains(value) else {
            throw .invalidInput("\(name) must be a number of seconds from \(range.lowerBound) to \(range.upperBound)")
        }
        return .milliseconds(Int(value * 1000))
    }

    private static func seconds(
        _ raw: String?, name: String, default fallback: Int, range: ClosedRange<Int>
    ) throws(VaultError)
        -> Int
    {
        guard let raw, !raw.isEmpty else { return fallback }
        guard let value = Int(raw), range.contains(value) else {
            throw .invalidInput("\(name) must be a whole number of seconds from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    private static func nonEmpty(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
}
