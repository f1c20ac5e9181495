// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport
import VaultTesting

@testable import VaultAuth

/// `--redirect-uri`: a fixed loopback redirect URI, for providers that compare redirect URIs
/// as strings (Glewlwyd refuses any port but the registered one).
@Suite("A fixed loopback redirect URI", .offThePool)
struct LoopbackRedirectTests {
    @Test(
        "loopback http URIs are taken as given: host, port (80 when none) and path (/ when none)",
        arguments: [
            ("http://127.0.0.1:8400/callback", LoopbackRedirect.Host.ipv4, 8400, "/callback"),
            ("http://[::1]:8400/cb", .ipv6, 8400, "/cb"),
            ("http://localhost:8400", .localhost, 8400, "/"),
            ("HTTP://LocalHost/oauth2/callback", .localhost, 80, "/oauth2/callback"),
            ("http://127.0.0.1:65535/a%20b/c", .ipv4, 65535, "/a%20b/c"),
        ] as [(String, LoopbackRedirect.Host, Int, String)])
    func accepted(text: String, host: LoopbackRedirect.Host, port: Int, path: String) throws {
        let redirect = try LoopbackRedirect(parsing: text)
        #expect(redirect.host == host && redirect.port == port && redirect.path == path)
        #expect(redirect.uri(boundPort: port) == text, "sent to the provider exactly as registered")
        #expect(redirect.description == text)
    }

    @Test(
        "anything else is refused as bad usage",
        arguments: [
            "https://127.0.0.1:8400/cb", "http://192.168.1.2:8400/cb", "http://127.0.0.2:8400/cb", "http://evil.example/cb",
            "http://u:p@127.0.0.1:8400/cb", "http://127.0.0.1:8400/cb?x=1", "http://127.0.0.1:8400/cb#f", "http://127.0.0.1:0/cb",
            "http://127.0.0.1:70000/cb", "http://127.0.0.1:8400/start/x", "http://127.0.0.1:8400/c b", "http://127.0.0.1:8400/é",
            "http://127.0.0.1:8400\\@evil.example/", "", "127.0.0.1:8400/cb", "http://127.0.0.1:8400/" + String(repeating: "a", count: 600),
            "http://127.0.0.1:8400/a/../callback", "http://127.0.0.1:8400/./callback", "http://127.0.0.1:8400/%2e%2e/cb",
            "http://127.0.0.1:8400/%73tart/x", "http://127.0.0.1:8400/c%61llback",
        ])
    func refused(text: String) {
        #expect {
            try LoopbackRedirect(parsing: text)
        } throws: {
            sameCase($0, as: AuthError.invalidRequest("")) && "\($0)".contains("--redirect-uri")
        }
    }

    @Test("the default takes a port the system picks and the path /callback")
    func anyPort() async throws {
        let listener = try await LoopbackRedirectListener.start(state: "s", authorizationURL: SignInPartsTests.authorizationURL)
        #expect(listener.port > 0 && listener.redirectURI == "http://127.0.0.1:\(listener.port)/callback")
        await listener.close()
    }

    @Test("a fixed URI: the listener binds its port, serves its path only, and the provider gets it as given")
    func fixedPortAndPath() async throws {
        let (listener, given) = try await Self.listener(at: { "http://127.0.0.1:\($0)/oauth2/cb" }, ipv6: false, state: "s-7")
        let port = listener.port
        #expect(listener.redirectURI == given)
        #expect(listener.startURL.absoluteString.hasPrefix("http://127.0.0.1:\(port)/start/"))
        let start = try SignInPartsTests.fetch(listener.startURL, port: port)
        #expect(start.contains("\r\nLocation: \(SignInPartsTests.authorizationURL(given).absoluteString)\r\n"), "\(start)")
        let cookie = try #require(start.firstMatch(of: #/\r\nSet-Cookie: ([^;\r]+)/#)).1
        func get(_ target: String) throws -> String {
            try RawSocket.exchange(
                port: port, "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nCookie: \(cookie)\r\nConnection: close\r\n\r\n")
        }
        #expect(try get("/callback?code=c&state=s-7").hasPrefix("HTTP/1.1 404"), "only the given path is served")
        #expect(try get("/oauth2/cb?code=the-code&state=s-7").hasPrefix("HTTP/1.1 200"))
        #expect(try await listener.callback(timeout: .seconds(30)) == .code("the-code"))
        await listener.close()
    }

    @Test("a fixed port in use: .unavailable at once, naming the port and the URI")
    func portInUse() async throws {
        let (fd, port) = try RawSocket.boundLoopback(listening: true)
        defer { close(fd) }
        let redirect = try LoopbackRedirect(parsing: "http://127.0.0.1:\(port)/callback")
        await #expect {
            try await LoopbackRedirectListener.start(state: "s", redirect: redirect, authorizationURL: SignInPartsTests.authorizationURL)
        } throws: {
            guard case .unavailable(let why) = $0 as? AuthError else { return false }
            return why.contains("port \(port) of 127.0.0.1 is in use") && why.contains("http://127.0.0.1:\(port)/callback")
        }
    }

    @Test("[::1]: the listener binds ::1, knows its own user's IPv6 connections, and checks the Host")
    func ipv6() async throws {
        let (listener, _) = try await Self.listener(at: { "http://[::1]:\($0)/cb" }, ipv6: true, state: "s-8")
        let port = listener.port
        #expect(listener.startURL.absoluteString.hasPrefix("http://[::1]:\(port)/start/"))
        let start = try RawSocket.exchange(
            port: port, ipv6: true, "GET \(listener.startURL.path) HTTP/1.1\r\nHost: [::1]:\(port)\r\nConnection: close\r\n\r\n")
        #expect(start.hasPrefix("HTTP/1.1 302"), "an IPv6 connection of this user is served: \(start)")
        let cookie = try #require(start.firstMatch(of: #/\r\nSet-Cookie: ([^;\r]+)/#)).1
        func get(host: String) throws -> String {
            try RawSocket.exchange(
                port: port, ipv6: true,
                "GET /cb?code=c6&state=s-8 HTTP/1.1\r\nHost: \(host)\r\nCookie: \(cookie)\r\nConnection: close\r\n\r\n")
        }
        #expect(try get(host: "127.0.0.1:\(port)").hasPrefix("HTTP/1.1 400"), "another Host is refused")
        #expect(try get(host: "[::1]:\(port)").hasPrefix("HTTP/1.1 200"))
        #expect(try await listener.callback(timeout: .seconds(30)) == .code("c6"))
        await listener.close()
    }

    @Test("localhost: 127.0.0.1 and ::1 both answer at the port; ::1 held by another program is .unavailable")
    func localhost() async throws {
        let (listener, _) = try await Self.listener(at: { "http://localhost:\($0)/cb" }, ipv6: false, state: "s-9")
        let port = listener.port
        let request = "GET \(listener.startURL.path) HTTP/1.1\r\nHost: localhost:\(port)\r\nConnection: close\r\n\r\n"
        #expect(try RawSocket.exchange(port: port, ipv6: true, request).hasPrefix("HTTP/1.1 302"), "::1 is taken and served too")
        await listener.close()

        let (fd, held) = try Self.boundIPv6()
        defer { close(fd) }
        let redirect = try LoopbackRedirect(parsing: "http://localhost:\(held)/cb")
        do {
            let started = try await LoopbackRedirectListener.start(
                state: "s", redirect: redirect, authorizationURL: SignInPartsTests.authorizationURL)
            await started.close()
            Issue.record("the listener started although another program listens at ::1:\(held)")
        } catch {
            guard case .unavailable(let why) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(why.contains("port \(held) of ::1 is in use"), "\(why)")
        }
    }

    /// A listener at the URI `text(port)` for a port that was free a moment ago (tried a few
    /// times: a test beside this one may take the port first), and that URI.
    static func listener(at text: (Int) -> String, ipv6: Bool, state: String) async throws -> (LoopbackRedirectListener, String) {
        for _ in 0..<5 {
            let (fd, port) = ipv6 ? try boundIPv6(listening: false) : try RawSocket.boundLoopback(listening: false)
            close(fd)
            let given = text(port)
            do {
                let listener = try await LoopbackRedirectListener.start(
                    state: state, redirect: try LoopbackRedirect(parsing: given), authorizationURL: SignInPartsTests.authorizationURL)
                #expect(listener.port == port)
                return (listener, given)
            } catch .unavailable {
                continue
            }
        }
        throw AuthError.unavailable("no free port in 5 tries")
    }

    /// A TCP socket bound to an ephemeral port of ::1 (listening unless told), and the port.
    static func boundIPv6(listening: Bool = true) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        }
        guard bound == 0, !listening || listen(fd, 8) == 0 else {
            close(fd)
            throw AuthError.network("cannot bind ::1")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin6_port)))
    }
}
