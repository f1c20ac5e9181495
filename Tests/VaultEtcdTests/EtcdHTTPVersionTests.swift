// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultEtcdFormat
import VaultStore
import VaultTestSupport

@testable import VaultEtcd

/// The etcd client speaks HTTP/1.1 to a TLS member, never HTTP/2: AsyncHTTPClient's
/// HTTP/2 handler can crash the process on a stream reset (its issue #922). A TLS server
/// that offers both in ALPN, as etcd does, records what the client chose.
@Suite("the etcd client's HTTP version", .offThePool) struct EtcdHTTPVersionTests {
    @Test("over TLS the client never picks h2 in ALPN, though the server offers it first")
    func http1OverTLS() async throws {
        try await withTemporaryDirectory("vault-etcd-alpn") { directory in
            let certificate = try await ChildProcess.runAsync(
                "/usr/bin/openssl",
                [
                    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", "\(directory)/key.pem", "-out", "\(directory)/cert.pem",
                ], timeout: 60)
            #expect(certificate.status == 0, "\(certificate.err)")
            // One connection: the ALPN choice on stdout, then an empty etcd answer.
            let server = #"""
                import socket, ssl, sys
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                context.load_cert_chain(sys.argv[1] + "/cert.pem", sys.argv[1] + "/key.pem")
                context.set_alpn_protocols(["h2", "http/1.1"])
                listener = socket.create_server(("127.0.0.1", 0))
                listener.settimeout(30)
                print("port", listener.getsockname()[1], flush=True)
                connection, _ = listener.accept()
                with context.wrap_socket(connection, server_side=True) as tls:
                    print("alpn", tls.selected_alpn_protocol(), flush=True)
                    tls.settimeout(10)
                    try:
                        tls.recv(65536)
                        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 13\r\n"
                        tls.sendall(head + b"Connection: close\r\n\r\n{\"header\":{}}")
                    except Exception as error:
                        print("error", error, flush=True)
                """#
            let process = try ChildProcess.start("/usr/bin/python3", ["-c", server, directory])
            defer { process.kill() }
            let announced = try await process.waitForOutput(timeout: Sanitizer.scaled(30)) { $0.contains("\n") }
            let port = try #require(announced?.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
            let client = try EtcdClient(
                configuration: EtcdConfiguration(
                    endpoints: ["https://127.0.0.1:\(port)"], prefix: "/alpn/", caFile: "\(directory)/cert.pem", timeout: .seconds(10)))
            _ = try? client.call("/v3/kv/range", ["key": EtcdWire.base64("/alpn/x")], as: EtcdWire.RangeResponse.self)
            let result = try await process.finishAsync(timeout: 30)
            #expect(result.out.contains("alpn "), "no TLS connection was made: \(result.out) \(result.err)")
            #expect(!result.out.contains("alpn h2"), "the client chose HTTP/2: \(result.out)")
        }
    }
}
