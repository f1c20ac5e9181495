// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Whether the etcd tests may run: they need a real cluster. `Scripts/test` runs them inside
/// `Scripts/with-etcd` (which sets `VAULT_ETCD_ENDPOINTS`); without it they FAIL, unless
/// `VAULT_SKIP_ETCD_TESTS=1` asks to skip them. Tests that stop members start a private
/// cluster of their own (``EtcdCluster``), so they never disturb the shared one.
public enum EtcdTestEnvironment {
    public static var skipRequested: Bool { ProcessInfo.processInfo.environment["VAULT_SKIP_ETCD_TESTS"] == "1" }

    /// The shared cluster's endpoints; records a failure and throws when there is none.
    public static func endpoints(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        guard let endpoints = ProcessInfo.processInfo.environment["VAULT_ETCD_ENDPOINTS"], !endpoints.isEmpty else {
            let message = "no etcd cluster for the etcd tests: run them with Scripts/test (or Scripts/with-etcd swift test), "
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
            guard let result = try? ChildProcess.run("/usr/bin/curl", ["-sS", "--max-time", "2", "-d", "{}", member.clientURL + "/v3/maintenance/status"]),
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
    private static func freePorts(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        return try (0..<count).map { _ in
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
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
