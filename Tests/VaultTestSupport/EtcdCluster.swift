// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Whether the etcd tests may run: they need a real cluster. `Scripts/test` runs them inside
/// `Scripts/with-etcd` (which sets `VAULT_ETCD_ENDPOINTS`); without it (a plain `swift test`)
/// they are skipped with a notice (the ``Testing/Trait/needsEtcd`` trait), and
/// `VAULT_SKIP_ETCD_TESTS=1` skips them anywhere. Tests that stop members start a private
/// cluster of their own (``EtcdCluster``), so they never disturb the shared one.
public enum EtcdTestEnvironment {
    public static var skipRequested: Bool { ProcessInfo.processInfo.environment["VAULT_SKIP_ETCD_TESTS"] == "1" }

    /// Whether the etcd tests run in this process: a cluster's endpoints are set
    /// (`Scripts/with-etcd`), and no skip was asked for.
    public static var shouldRun: Bool {
        !skipRequested && !(ProcessInfo.processInfo.environment["VAULT_ETCD_ENDPOINTS"] ?? "").isEmpty
    }

    /// The shared cluster's endpoints; records a failure and throws when there is none.
    public static func endpoints(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        guard let endpoints = ProcessInfo.processInfo.environment["VAULT_ETCD_ENDPOINTS"], !endpoints.isEmpty else {
            let message =
                "no etcd cluster for the etcd tests: run them with Scripts/test (or Scripts/with-etcd swift test), "
                + "or set VAULT_SKIP_ETCD_TESTS=1 to skip them."
            Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
            throw CancellationError()
        }
        return endpoints
    }

    /// A prefix no other test uses: `/vault-test-PID-RANDOM/`.
    public static func uniquePrefix() -> String {
        "/vault-test-\(getpid())-\(UUID().uuidString.prefix(8).lowercased())/"
    }

    /// Every key and value under `prefix`, as etcd's own client (`etcdctl`) prints them
    /// (keys and values as raw text, one per line), for checks that nothing readable is there.
    public static func dump(endpoints: String, prefix: String) throws -> ProcessResult {
        try ChildProcess.run(
            "/usr/bin/etcdctl", ["--endpoints", endpoints, "get", "--prefix", prefix], environment: ["ETCDCTL_API": "3"],
            timeout: 30)
    }
}

/// A private three-member etcd cluster on loopback (Debian's `etcd`), in a temporary
/// directory, for tests that kill members: started by ``start()``, stopped by ``shutdown()``.
public final class EtcdCluster: @unchecked Sendable {
    /// One member: its name, client URL and data directory.
    public struct Member: Sendable {
        public let name: String
        public let clientURL: String
        let peerURL: String
    }

    public let members: [Member]
    public let directory: String
    private let lock = NSLock()
    private var running: [String: ChildProcess] = [:]
    private let initialCluster: String

    /// The client URLs, comma-separated (`VAULT_ETCD_ENDPOINTS`).
    public var endpoints: String { members.map(\.clientURL).joined(separator: ",") }

    private init(directory: String, ports: [Int]) {
        self.directory = directory
        members = (0..<3).map { index in
            Member(name: "m\(index + 1)", clientURL: "http://127.0.0.1:\(ports[index])", peerURL: "http://127.0.0.1:\(ports[index + 3])")
        }
        initialCluster = members.map { "\($0.name)=\($0.peerURL)" }.joined(separator: ",")
    }

    /// Starts the three members and waits (at most 30 s) until each is healthy.
    public static func start() async throws -> EtcdCluster {
        let directory = NSTemporaryDirectory() + "vault-etcd-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let cluster = EtcdCluster(directory: directory, ports: try freePorts(6))
        for member in cluster.members { try cluster.launch(member) }
        for member in cluster.members { try await cluster.waitHealthy(member, seconds: 30) }
        return cluster
    }

    /// Kills every member and removes the directory.
    public func shutdown() {
        for member in members { kill(member.name) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Kills a member with SIGKILL (as a machine that dies).
    public func kill(_ name: String) {
        let process = lock.withLock { running.removeValue(forKey: name) }
        process?.kill()
        _ = process?.waitForExit(timeout: 10)
    }

    /// Starts a killed member again on its data and waits until it is healthy.
    public func restart(_ name: String) async throws {
        guard let member = members.first(where: { $0.name == name }) else { return }
        try launch(member)
        try await waitHealthy(member, seconds: 30)
    }

    /// The name of the member that is leader now, asked of the running members.
    public func leader() -> String? {
        for member in members where lock.withLock({ running[member.name] != nil }) {
            guard
                let result = try? ChildProcess.run(
                    "/usr/bin/curl", ["-sS", "--max-time", "2", "-d", "{}", member.clientURL + "/v3/maintenance/status"]),
                let json = try? JSONSerialization.jsonObject(with: result.stdout) as? [String: Any],
                let header = json["header"] as? [String: Any], let id = header["member_id"] as? String,
                let leader = json["leader"] as? String
            else { continue }
            if id == leader { return member.name }
        }
        return nil
    }

    private func launch(_ member: Member) throws {
        let data = "\(directory)/\(member.name)"
        let process = try ChildProcess(
            "/usr/bin/etcd",
            [
                "--name", member.name, "--data-dir", data, "--listen-client-urls", member.clientURL, "--advertise-client-urls",
                member.clientURL, "--listen-peer-urls", member.peerURL, "--initial-advertise-peer-urls", member.peerURL,
                "--initial-cluster", initialCluster, "--initial-cluster-state", "new", "--initial-cluster-token",
                "vault-test-\(getpid())", "--heartbeat-interval", "50", "--election-timeout", "500", "--logger", "zap",
                "--log-outputs", "\(directory)/\(member.name).log",
            ], environment: ["PATH": "/usr/bin:/bin"], stdout: .discarded, stderr: .discarded)
        lock.withLock { running[member.name] = process }
    }

    private func waitHealthy(_ member: Member, seconds: Double) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let result = try? await ChildProcess.runAsync("/usr/bin/curl", ["-sS", "--max-time", "2", member.clientURL + "/health"], timeout: 5),
                result.out.contains("\"health\":\"true\"")
            {
                return
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw EtcdClusterError(message: "etcd member \(member.name) did not become healthy within \(seconds) s (logs in \(directory))")
    }

    /// `count` loopback ports that were free a moment ago.
    static func freePorts(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        return try (0..<count).map { _ in
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            sockets.append(fd)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
            }
            guard bound else { throw EtcdClusterError(message: "no free loopback port") }
            return Int(UInt16(bigEndian: address.sin_port))
        }
    }
}

/// A private cluster that could not be started.
public struct EtcdClusterError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// Runs `body` with a private cluster (``EtcdCluster``), shut down after, also on throw.
public func withEtcdCluster<T>(_ body: (EtcdCluster) async throws -> T) async throws -> T {
    let cluster = try await EtcdCluster.start()
    do {
        let result = try await body(cluster)
        cluster.shutdown()
        return result
    } catch {
        cluster.shutdown()
        throw error
    }
}

/// A private one-member etcd as a fleet should run it: TLS on the client port, client
/// certificates required (`--client-cert-auth`), etcd's authentication on, and a user
/// `vault-fleet` (password ``password``) whose role may use ``prefix`` only. The CA, the
/// member's and the client's certificates are made with `openssl` in the directory.
public final class EtcdSecureMember: @unchecked Sendable {
    public let directory: String
    public let endpoint: String
    public let prefix = "/fleet/"
    public let password = "fleet-etcd-password-3c9d"
    private let process: ChildProcess

    public var caFile: String { "\(directory)/ca.pem" }
    public var certificateFile: String { "\(directory)/client.pem" }
    public var keyFile: String { "\(directory)/client-key.pem" }
    /// A client certificate with a Common Name, which etcd's gateway refuses while its
    /// authentication is on (so vault's has none: the user comes from `--etcd-user`).
    public var namedCertificateFile: String { "\(directory)/named.pem" }
    public var namedKeyFile: String { "\(directory)/named-key.pem" }
    /// A client certificate signed by another CA (refused by the member).
    public var strangerCertificateFile: String { "\(directory)/stranger.pem" }
    public var strangerKeyFile: String { "\(directory)/stranger-key.pem" }

    private init(directory: String, endpoint: String, process: ChildProcess) {
        self.directory = directory
        self.endpoint = endpoint
        self.process = process
    }

    /// Makes the certificates, starts the member, creates the users and roles and turns
    /// authentication on.
    public static func start() async throws -> EtcdSecureMember {
        let directory = NSTemporaryDirectory() + "vault-etcd-tls-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let script = """
            set -e
            cd "$1"
            key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
            key ca-key.pem; openssl req -x509 -new -key ca-key.pem -out ca.pem -days 2 -subj /CN=vault-test-ca
            key other-ca-key.pem; openssl req -x509 -new -key other-ca-key.pem -out other-ca.pem -days 2 -subj /CN=other-ca
            sign() { # name subject ca usage
                key "$1-key.pem"; openssl req -new -key "$1-key.pem" -out "$1.csr" -subj "$2"
                printf 'subjectAltName=IP:127.0.0.1\\nextendedKeyUsage=%s\\n' "$4" > "$1.ext"
                openssl x509 -req -in "$1.csr" -CA "$3.pem" -CAkey "$3-key.pem" -CAcreateserial -out "$1.pem" -days 2 -extfile "$1.ext" 2>/dev/null
            }
            sign server /CN=127.0.0.1 ca serverAuth,clientAuth
            sign client /O=vault-fleet ca clientAuth
            sign named /CN=vault-fleet ca clientAuth
            sign root /CN=root ca clientAuth
            sign stranger /O=vault-fleet other-ca clientAuth
            """
        let made = try await ChildProcess.runAsync("/bin/bash", ["-c", script, "make-certificates", directory], timeout: 60)
        guard made.status == 0 else { throw EtcdClusterError(message: "openssl failed: \(made.err)") }
        let clientPort = try EtcdCluster.freePorts(2)
        let endpoint = "https://127.0.0.1:\(clientPort[0])"
        let peer = "http://127.0.0.1:\(clientPort[1])"
        let process = try ChildProcess(
            "/usr/bin/etcd",
            [
                "--name", "tls", "--data-dir", "\(directory)/data", "--listen-client-urls", endpoint, "--advertise-client-urls", endpoint,
                "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer, "--initial-cluster", "tls=\(peer)",
                "--cert-file", "\(directory)/server.pem", "--key-file", "\(directory)/server-key.pem", "--client-cert-auth",
                "--trusted-ca-file", "\(directory)/ca.pem", "--logger", "zap", "--log-outputs", "\(directory)/etcd.log",
            ], environment: ["PATH": "/usr/bin:/bin"], stdout: .discarded, stderr: .discarded)
        let member = EtcdSecureMember(directory: directory, endpoint: endpoint, process: process)
        do {
            try await member.waitHealthy()
            for command in [
                ["user", "add", "root", "--new-user-password=root-password"], ["role", "add", "vault-fleet"],
                ["role", "grant-permission", "vault-fleet", "--prefix=true", "readwrite", member.prefix],
                ["user", "add", "vault-fleet", "--new-user-password=\(member.password)"],
                ["user", "grant-role", "vault-fleet", "vault-fleet"], ["auth", "enable"],
            ] {
                let result = try await member.etcdctl(command)
                guard result.status == 0 else { throw EtcdClusterError(message: "etcdctl \(command[0]) \(command[1]): \(result.err)") }
            }
        } catch {
            member.shutdown()
            throw error
        }
        return member
    }

    /// Runs `etcdctl` as root with root's client certificate.
    public func etcdctl(_ arguments: [String]) async throws -> ProcessResult {
        try await ChildProcess.runAsync(
            "/usr/bin/etcdctl",
            ["--endpoints", endpoint, "--cacert", caFile, "--cert", "\(directory)/root.pem", "--key", "\(directory)/root-key.pem"]
                + arguments, environment: ["ETCDCTL_API": "3"], timeout: 30)
    }

    public func shutdown() {
        process.kill()
        _ = process.waitForExit(timeout: 10)
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func waitHealthy() async throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let result = try? await etcdctl(["endpoint", "health"]), result.status == 0 { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw EtcdClusterError(message: "the TLS etcd member did not become healthy (log: \(directory)/etcd.log)")
    }
}

/// Runs `body` with a private TLS member (``EtcdSecureMember``), shut down after, also on throw.
public func withSecureEtcdMember<T>(_ body: (EtcdSecureMember) async throws -> T) async throws -> T {
    let member = try await EtcdSecureMember.start()
    do {
        let result = try await body(member)
        member.shutdown()
        return result
    } catch {
        member.shutdown()
        throw error
    }
}
