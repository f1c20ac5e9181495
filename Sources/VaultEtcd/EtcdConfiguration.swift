// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultStore

/// Where the fleet's etcd is and how to talk to it: typed, checked once by
/// ``init(endpoints:prefix:caFile:certificateFile:keyFile:user:passwordFile:timeout:lockTTL:insecureHTTP:)``,
/// which throws a ``Problem`` a program words with its own names (the `vault` command makes
/// it from `--etcd-endpoints`, `--etcd-prefix`, … and `VAULT_ETCD_*`; see docs/fleet.md).
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
    /// (`vault`: `--etcd-insecure-http`): the etcd password, its token and the sealed items
    /// then cross the network in clear text.
    public var insecureHTTP: Bool = false

    /// True when some endpoint is `https://` (the TLS settings are used for those).
    public var usesTLS: Bool { endpoints.contains { $0.scheme == "https" } }

    /// The default prefix.
    public static let defaultPrefix = "/vault/"

    /// The default ``timeout``: 10 s.
    public static let defaultTimeout: Duration = .seconds(10)
    /// The default ``lockTTL``: 5 s.
    public static let defaultLockTTL = 5
    /// The most endpoints a configuration may name.
    public static let maximumEndpoints = 16

    /// What is wrong with a configuration, for the program to word with its own names.
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        /// No endpoint was given.
        case noEndpoints
        /// More than ``EtcdConfiguration/maximumEndpoints`` endpoints.
        case tooManyEndpoints
        /// An endpoint that is not an etcd client URL (`http://` or `https://`, host and port, no
        /// path); `endpoint` is nil when it carries user info (which may be a password, so it is
        /// never repeated), else it is safe to show (escaped, at most 120 characters and `…`).
        case badEndpoint(endpoint: String?, EndpointFault)
        /// A client certificate without its key, or a key without its certificate.
        case certificateWithoutKey
        /// TLS files (CA, certificate, key) with a plain `http://` endpoint (`endpoint`).
        case tlsFilesWithPlainHTTP(endpoint: String)
        /// Plain `http://` to another machine (`endpoint`) without ``EtcdConfiguration/insecureHTTP``.
        case plainHTTPToAnotherMachine(endpoint: String)
        /// A user without a password file, or a password file without a user.
        case userWithoutPasswordFile
        /// A prefix that does not start with `/`, is longer than 256 bytes, or holds control characters.
        case badPrefix

        /// What is wrong with an endpoint.
        public enum EndpointFault: Sendable, Equatable {
            /// Not an etcd client URL.
            case notAClientURL
            /// A port that is not 1 to 65535.
            case noUsablePort
        }

        /// One line, in the library's words.
        public var description: String {
            switch self {
            case .noEndpoints: "no etcd endpoint was given"
            case .tooManyEndpoints: "at most \(EtcdConfiguration.maximumEndpoints) etcd endpoints"
            case .badEndpoint(let endpoint, let fault):
                "\(endpoint ?? "an endpoint with user info") "
                    + (fault == .noUsablePort
                        ? "has no usable port (1 to 65535)" : "is not an etcd client URL (http:// or https://host:port, no path)")
            case .certificateWithoutKey: "a client certificate and its private key go together"
            case .tlsFilesWithPlainHTTP(let endpoint): "TLS files are for https:// endpoints, and \(endpoint) is http://"
            case .plainHTTPToAnotherMachine(let endpoint): "\(endpoint) is plain HTTP to another machine, which was not allowed"
            case .userWithoutPasswordFile: "an etcd user and its password file go together"
            case .badPrefix: "the prefix must start with / (at most 256 bytes, no control characters), like /vault/"
            }
        }
    }

    /// Checks and makes a configuration.
    /// - Parameters:
    ///   - endpoints: the members' client URLs as written (`https://host:port`; `http://`
    ///     only to this machine unless `insecureHTTP`), at most ``maximumEndpoints``.
    ///   - prefix: the key prefix vault owns (default ``defaultPrefix``; a missing final `/` is added).
    ///   - caFile, certificateFile, keyFile: PEM files for `https://` endpoints (the last two together).
    ///   - user, passwordFile: etcd's user and the file its password is read from (together).
    ///   - timeout: the bound on one store operation; lockTTL: the refresh lock's lease, in seconds.
    ///   - insecureHTTP: allow `http://` endpoints on other machines (clear text).
    /// - Throws: the first ``Problem`` found.
    public init(
        endpoints raw: [String], prefix: String? = nil, caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil,
        user: String? = nil, passwordFile: String? = nil, timeout: Duration = defaultTimeout, lockTTL: Int = defaultLockTTL,
        insecureHTTP: Bool = false
    ) throws(Problem) {
        guard !raw.isEmpty else { throw .noEndpoints }
        var endpoints: [URL] = []
        for endpoint in raw { endpoints.append(try Self.endpoint(endpoint.trimmingCharacters(in: .whitespaces))) }
        guard endpoints.count <= Self.maximumEndpoints else { throw .tooManyEndpoints }
        let prefix = try Self.prefix(prefix ?? Self.defaultPrefix)
        let certificate = Self.nonEmpty(certificateFile)
        let key = Self.nonEmpty(keyFile)
        guard (certificate == nil) == (key == nil) else { throw .certificateWithoutKey }
        let plain = endpoints.filter { $0.scheme == "http" }
        let caFile = Self.nonEmpty(caFile)
        // They would be silently unused for those endpoints: the user meant TLS.
        if !plain.isEmpty, caFile != nil || certificate != nil { throw .tlsFilesWithPlainHTTP(endpoint: plain[0].absoluteString) }
        if !insecureHTTP, let remote = plain.first(where: { !Self.isLoopback($0.host ?? "") }) {
            throw .plainHTTPToAnotherMachine(endpoint: remote.absoluteString)
        }
        let user = Self.nonEmpty(user)
        let passwordFile = Self.nonEmpty(passwordFile)
        guard (user == nil) == (passwordFile == nil) else { throw .userWithoutPasswordFile }
        self.init(
            endpoints: endpoints, prefix: prefix, caFile: caFile, certificateFile: certificate, keyFile: key, user: user,
            passwordFile: passwordFile, timeout: timeout, lockTTL: lockTTL, insecureHTTP: insecureHTTP)
    }

    private init(
        endpoints: [URL], prefix: String, caFile: String?, certificateFile: String?, keyFile: String?, user: String?, passwordFile: String?,
        timeout: Duration, lockTTL: Int, insecureHTTP: Bool
    ) {
        self.endpoints = endpoints
        self.prefix = prefix
        self.caFile = caFile
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.user = user
        self.passwordFile = passwordFile
        self.timeout = timeout
        self.lockTTL = lockTTL
        self.insecureHTTP = insecureHTTP
    }

    /// The endpoints as given, for messages.
    public var endpointList: String { endpoints.map(\.absoluteString).joined(separator: ", ") }

    private static func endpoint(_ raw: String) throws(Problem) -> URL {
        func refuse(_ fault: Problem.EndpointFault = .notAClientURL) -> Problem {
            // A URL with user info may carry a password: never repeat it; nor a huge one.
            let shown = raw.contains("@") ? nil : "\"\(TextEscaping.escaped(String(raw.prefix(120))))\(raw.count > 120 ? "…" : "")\""
            return .badEndpoint(endpoint: shown, fault)
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
            else { throw refuse(.noUsablePort) }
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

    private static func prefix(_ raw: String) throws(Problem) -> String {
        // No control, format (bidi) or separator characters: the prefix is shown in messages.
        let shown: (Unicode.Scalar) -> Bool = { scalar in
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: false
            default: true
            }
        }
        guard raw.hasPrefix("/"), raw.utf8.count <= 256, raw.unicodeScalars.allSatisfy(shown) else {
            throw .badPrefix
        }
        return raw.hasSuffix("/") ? raw : raw + "/"
    }

    private static func nonEmpty(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
}
