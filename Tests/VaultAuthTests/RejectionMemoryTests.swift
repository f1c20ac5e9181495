// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Synchronization
import Testing
import VaultStore
import VaultTestSupport
import VaultTesting

@testable import VaultAuth

/// The rejection a silent login remembers lives in the account's settings item, which
/// other writers (a sign-in's profile, `markRegistered`) write too.
@Suite("Silent re-login: the remembered rejection", .offThePool)
struct RejectionMemoryTests {
    /// A provider whose every login is rejected; counts the logins.
    final class RejectingProvider: AuthProvider {
        let logins = Atomic<Int>(0)
        var name: String { "rejecting" }
        func login(account: String, password: Secret?) async throws(AuthError) -> TokenSet {
            logins.add(1, ordering: .relaxed)
            throw .authentication("invalid_grant", providerCode: "invalid_grant")
        }
        func refresh(_ tokens: TokenSet) async throws(AuthError) -> TokenSet { throw .authentication("dead") }
    }

    static let server = "https://api.example.test"

    static func session(clock: ManualClock) -> AuthSession {
        AuthSession(
            store: InMemoryStore(), server: server, account: "ann", transport: FakeTransport { _ in Reply(status: 200) },
            clock: clock, configuration: .init(lock: .inProcessOnly))
    }

    @Test("a rejection recorded by a silent login survives markRegistered's write of the settings")
    func rejectionSurvivesMarkRegistered() async throws {
        let clock = ManualClock()
        let session = Self.session(clock: clock)
        var settings = LoginSettings(serverURL: Self.server)
        settings.pendingProfile = PendingProfile(name: "Ann", email: "ann@example.test")
        try await session.items.saveSettingsData(settings.encoded())
        try await session.items.savePassword(Secret("old-password"))
        let reauthenticator = SilentReauthenticator(clock: clock)
        let provider = RejectingProvider()
        await #expect(throws: SilentReauthenticator.rejected(session.items)) {
            try await reauthenticator.reauthenticate(account: session.items, provider: provider, after: .authentication("dead"))
        }
        let rejectedAt = try #require(try await AccountStatus.read(session.items).credentialsRejectedAt)
        #expect(rejectedAt == clock.now())

        try await session.markRegistered()

        #expect(try await session.settings().pendingProfile == nil)
        #expect(try await AccountStatus.read(session.items).credentialsRejectedAt == rejectedAt, "the rejection was kept")
        // And it still holds the next silent login back: the same password is not offered again.
        await #expect(throws: SilentReauthenticator.rejected(session.items)) {
            try await reauthenticator.reauthenticate(account: session.items, provider: provider, after: .authentication("dead"))
        }
        #expect(provider.logins.load(ordering: .relaxed) == 1)
    }

    @Test("a settings item written when the rejection was patched into its JSON is read with it")
    func patchedItemsStillDecode() throws {
        let credential = Secret("old-password")
        let salt: [UInt8] = Array(repeating: 7, count: 16)
        let fingerprint = CredentialRejection.fingerprint(credential, salt: salt)
        let json = """
            {"clientAuthentication":"basic","grant":"password","provider":"reference","rejection":\
            {"fingerprint":\(fingerprint),"rejectedAt":1700000000,"salt":\(salt)},"serverURL":"https://api.example.test"}
            """
        let settings = try #require(LoginSettings.decode(Array(json.utf8)))
        let rejection = try #require(settings.rejection)
        #expect(rejection.rejectedAt == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(rejection.matches(credential))
        #expect(!rejection.matches(Secret("new-password")))
        // Written back in the same form.
        let again = try #require(LoginSettings.decode(settings.encoded()))
        #expect(again == settings)
    }
}
