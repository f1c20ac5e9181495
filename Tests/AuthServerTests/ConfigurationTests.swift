// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import Testing
import VaultTestSupport

@Suite("Configuration and lifecycle", .offThePool)
struct ConfigurationTests {
    @Test("NAME:SECRET splits at the first colon")
    func credentialParsing() {
        #expect(CredentialPair(parsing: "ann:pw") == CredentialPair(name: "ann", secret: "pw"))
        #expect(CredentialPair(parsing: "ann:p:w:") == CredentialPair(name: "ann", secret: "p:w:"))
        #expect(CredentialPair(parsing: "nocolon") == nil)
        #expect(CredentialPair(parsing: ":pw") == nil)
        #expect(CredentialPair(parsing: "ann:") == nil)
    }

    @Test("unusable configurations are refused")
    func validation() {
        #expect(throws: AuthServerConfigurationError.self) {
            try ReferenceAuthServer(configuration: AuthServerConfiguration(accessTokenLifetime: 0))
        }
        #expect(throws: AuthServerConfigurationError.self) {
            try ReferenceAuthServer(configuration: AuthServerConfiguration(refreshTokenLifetime: -1))
        }
        #expect(throws: AuthServerConfigurationError.self) {
            try ReferenceAuthServer(configuration: AuthServerConfiguration(port: 70_000))
        }
        #expect(throws: AuthServerConfigurationError.self) {
            try ReferenceAuthServer(configuration: AuthServerConfiguration(accessTokenLifetime: .nan))
        }
    }

    @Test("start reports the bound port once, stop frees it, a second start is refused")
    func lifecycle() async throws {
        let server = try ReferenceAuthServer(configuration: AuthServerConfiguration())
        #expect(server.port == nil)
        let port = try await server.start()
        #expect(port > 0)
        #expect(server.port == port)
        #expect(server.baseURL == "http://127.0.0.1:\(port)")
        #expect(try await APIClient(port: port).get("/api/stats").status == 200)
        await #expect(throws: ReferenceAuthServerError.alreadyStarted) {
            try await server.start()
        }
        await server.stop()
        #expect(server.port == nil)
        await server.stop()
    }

    @Test("binding a port in use fails instead of hanging")
    func portInUse() async throws {
        try await withServer { server, _ in
            let port = try #require(server.port)
            let second = try ReferenceAuthServer(configuration: AuthServerConfiguration(port: port))
            // SO_REUSEADDR does not allow two listeners on Linux.
            await #expect(throws: (any Error).self) {
                try await second.start()
            }
            await second.stop()
        }
    }

    @Test("the two instances are independent")
    func independentInstances() async throws {
        try await withServer { first, firstClient in
            try await withServer { second, secondClient in
                #expect(first.port != second.port)
                _ = try await firstClient.register("uma", "pw")
                #expect(try await secondClient.login("uma", "pw").status == 401)
                #expect(first.stats.registrations == 1 && second.stats.registrations == 0)
            }
        }
    }
}
