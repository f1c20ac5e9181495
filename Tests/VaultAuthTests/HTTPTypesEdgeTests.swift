// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import HTTPTypes
import Testing
import VaultStore
import VaultTestSupport
import VaultTesting

@testable import VaultAuth

/// Where swift-http-types' `HTTPRequest` meets vault's policy: what the types mend on their
/// own (line breaks in values), what vault still refuses (reserved headers, other control
/// characters, a request without an absolute URL) and what a user's typed headers get
/// (a refusal, never a mended value).
@Suite("swift-http-types at VaultAuth's edge: refusals, not mended values", .offThePool)
struct HTTPTypesEdgeTests {
    /// A Requester for `ann` on https://api.example.test, and the transport it sends through.
    func requester(_ answer: @escaping FakeTransport.Handler = { _ in Reply(status: 200) }) async throws -> (Requester, FakeTransport) {
        let transport = FakeTransport(answer)
        let clock = ManualClock()
        let provider = FakeProvider(clock: clock)
        let account = AccountItems(store: InMemoryStore(), server: "https://api.example.test", account: "ann")
        try await account.saveTokens(provider.initialTokens())
        return (Requester(account: account, provider: provider, transport: transport, clock: clock), transport)
    }

    let url = URL(string: "https://api.example.test/things")!

    @Test("a user's headers: a line break, an escape byte or DEL in a value is refused, not turned into a space")
    func typedValuesRefused() {
        for value in ["a\r\nAuthorization: Bearer EVIL", "a\nb", "a\u{1B}[2Jb", "a\u{7F}", "a\u{0}b"] {
            let error = refusal([("X-Key", value)])
            #expect(error.map { sameCase($0, as: AuthError.invalidRequest("")) } == true, "\(value.debugDescription)")
            let message = error?.description ?? ""
            #expect(message.contains("X-Key") && !message.contains("EVIL"), "the message names the header, never its value: \(message)")
        }
    }

    @Test("a user's headers: names that are not tokens, and the headers vault sets, are refused")
    func typedNamesRefused() {
        for name in ["", "X Key", "X:Key", "Ä", String(repeating: "x", count: 257), "Authorization", "host", "Content-Length", "TE"] {
            #expect(throws: AuthError.self, "\(name.debugDescription)") { try HTTPFields(validating: [(name, "v")]) }
        }
    }

    @Test("a user's headers: a tab is a value's own, and the order given is kept")
    func typedValuesKept() throws {
        let fields = try HTTPFields(validating: [("X-B", "1\t2"), ("X-A", "3"), ("x-b", "4")])
        #expect(fields.map(\.name.rawName) == ["X-B", "X-A", "x-b"])
        #expect(fields.map(\.value) == ["1\t2", "3", "4"])
    }

    @Test("a library caller's reserved header is refused before anything is sent", arguments: ["Host", "Transfer-Encoding", "Authorization"])
    func reservedByLibraryCaller(name: String) async throws {
        let (requester, transport) = try await requester()
        var request = HTTPRequest(method: .get, url: url)
        request.headerFields[HTTPField.Name(name)!] = "evil.example"
        let error = await caughtError { () async throws(AuthError) in try await requester.send(request) }
        #expect(error.map { sameCase($0, as: AuthError.invalidRequest("")) } == true, "\(String(describing: error))")
        #expect(transport.requests.count == 0)
    }

    @Test("a control character let through by a lenient field is refused; a mended line break is sent as a space")
    func lenientValues() async throws {
        let (requester, transport) = try await requester()
        var request = HTTPRequest(method: .get, url: url)
        request.headerFields.append(HTTPField(name: HTTPField.Name("X-Key")!, lenientValue: Array("a\u{1B}[2Jb".utf8)))
        let error = await caughtError { () async throws(AuthError) in try await requester.send(request) }
        #expect(error.map { sameCase($0, as: AuthError.invalidRequest("")) } == true, "\(String(describing: error))")
        #expect(transport.requests.count == 0)

        var mended = HTTPRequest(method: .get, url: url)
        mended.headerFields[HTTPField.Name("X-Key")!] = "a\r\nAuthorization: Bearer EVIL"
        #expect(try await requester.send(mended).response.status == 200)
        let sent = try #require(transport.requests.all.last)
        #expect(sent.header("X-Key") == "a  Authorization: Bearer EVIL", "swift-http-types mends a line break into a space")
        #expect(FakeTransport.bearer(of: sent) == "access-0", "the only Authorization is the Requester's")
    }

    @Test("a request without an absolute URL is refused, not a crash")
    func noAuthority() async throws {
        let (requester, transport) = try await requester()
        let pathOnly = HTTPRequest(method: .get, scheme: "https", authority: nil, path: "/things")
        let error = await caughtError { () async throws(AuthError) in try await requester.send(pathOnly) }
        #expect(error.map { sameCase($0, as: AuthError.invalidRequest("")) } == true, "\(String(describing: error))")
        #expect(transport.requests.count == 0)
    }

    @Test("CONNECT is refused by name (swift-http-types gives a CONNECT request no URL)")
    func connect() async throws {
        let (requester, transport) = try await requester()
        let tunnel = HTTPRequest(method: .connect, scheme: nil, authority: "api.example.test:443", path: nil)
        let error = await caughtError { () async throws(AuthError) in try await requester.send(tunnel) }
        #expect(error.map { sameCase($0, as: AuthError.invalidRequest("")) && "\($0)".contains("CONNECT") } == true, "\(String(describing: error))")
        #expect(transport.requests.count == 0)
    }

    @Test("the body travels beside the head, and comes back whole")
    func bodyBesideHead() async throws {
        let (requester, transport) = try await requester { sent in Reply(status: 201, body: (sent.body ?? []).reversed()) }
        let (response, body) = try await requester.send(HTTPRequest(method: .post, url: url), body: Array("abc".utf8))
        #expect(response.status == .created && body == Array("cba".utf8))
        #expect(transport.requests.all.map(\.method) == ["POST"])
    }

    func refusal(_ pairs: [(name: String, value: String)]) -> AuthError? {
        do throws(AuthError) {
            _ = try HTTPFields(validating: pairs)
            return nil
        } catch {
            return error
        }
    }
}
