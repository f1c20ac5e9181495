import Testing
import VaultStore

/// The contract every `SecureStore` backend keeps. Each backend's test suite calls
/// `StoreContract.verify(_:)` on a fresh, empty store; it fails on the first broken rule.
enum StoreContract {
    static func verify(_ store: some SecureStore, namespace: String = "contract") throws {
        let server = "\(namespace).example.org"
        let alice = CredentialKey(server: server, account: "alice")
        let bob = CredentialKey(server: server, account: "bob")
        let other = CredentialKey(server: "other-\(server)", account: "alice")

        // load of a missing item is nil, remove of a missing item succeeds
        #expect(try store.load(alice) == nil)
        try store.remove(alice)
        #expect(try store.list(server: server).isEmpty)

        // save then load round-trips secret and label; default label
        try store.save(Credential(key: alice, secret: Secret("first secret"), label: "Alice's login"))
        let loaded = try #require(try store.load(alice))
        #expect(loaded.secret == Secret("first secret"))
        #expect(loaded.label == "Alice's login")
        #expect(loaded.key == alice)
        try store.save(Credential(key: bob, secret: Secret("bob's")))
        #expect(try store.load(bob)?.label == "vault: bob@\(server)")

        // save updates in place
        try store.save(Credential(key: alice, secret: Secret("second secret"), label: "Alice's login"))
        #expect(try store.load(alice)?.secret == Secret("second secret"))
        #expect(try store.list(server: server).filter { $0.account == "alice" }.count == 1)

        // keys are exact: same account on another server is another item
        #expect(try store.load(other) == nil)
        try store.save(Credential(key: other, secret: Secret("other")))
        #expect(try store.load(alice)?.secret == Secret("second secret"))
        #expect(try store.load(other)?.secret == Secret("other"))

        // list: metadata only, filtered by server, sorted
        let listed = try store.list(server: server)
        #expect(listed.map(\.account) == ["alice", "bob"])
        #expect(listed.allSatisfy { $0.kind == .password })
        #expect(listed.allSatisfy { $0.server == server })
        let all = try store.list(server: nil)
        #expect(all.contains { $0.key == other })

        // unicode and awkward bytes survive
        let unicode = CredentialKey(server: server, account: "zoë 🙂")
        try store.save(Credential(key: unicode, secret: Secret("pä$$ wörd\twith tab and trailing space ")))
        #expect(try store.load(unicode)?.secret == Secret("pä$$ wörd\twith tab and trailing space "))

        // invalid input is refused with invalidInput, nothing stored
        // (Only these servers' items: other tests may share a real keyring meanwhile.)
        let badKeys = [CredentialKey(server: "", account: "x"), CredentialKey(server: server, account: "a\u{0}b"),
                       CredentialKey(server: server, account: ""), CredentialKey(server: "s\u{1B}[2J", account: "x")]
        let touched = Set(badKeys.map(\.server))
        let before = try store.list(server: nil).filter { touched.contains($0.server) }
        for bad in badKeys {
            #expect {
                try store.save(Credential(key: bad, secret: Secret("s")))
            } throws: { error in
                guard case .invalidInput = error as? VaultError else { return false }
                return true
            }
        }
        #expect(try store.list(server: nil).filter { touched.contains($0.server) } == before, "nothing stored by a refused save")

        // kinds are separate items: a token item never replaces or shadows the password
        let tokens = CredentialKey(server: server, account: "alice", kind: .tokens)
        let settings = CredentialKey(server: server, account: "alice", kind: .settings)
        try store.save(Credential(key: tokens, secret: Secret("{\"accessToken\":\"t\"}")))
        try store.save(Credential(key: settings, secret: Secret("{}")))
        #expect(try store.load(alice)?.secret == Secret("second secret"))
        #expect(try store.load(tokens)?.secret == Secret("{\"accessToken\":\"t\"}"))
        #expect(try store.load(tokens)?.key.kind == .tokens)
        #expect(try store.list(server: server).filter { $0.account == "alice" }.map(\.kind).sorted() == [.password, .tokens, .settings])
        try store.remove(tokens)
        try store.remove(settings)
        #expect(try store.load(tokens) == nil)
        #expect(try store.load(alice) != nil)

        // remove deletes exactly one item and is idempotent
        try store.remove(alice)
        #expect(try store.load(alice) == nil)
        #expect(try store.load(bob) != nil)
        try store.remove(alice)
        try store.remove(bob)
        try store.remove(other)
        try store.remove(unicode)
        #expect(try store.list(server: server).isEmpty)
    }
}

@Suite struct InMemoryStoreTests {
    @Test func keepsTheContract() throws {
        try StoreContract.verify(InMemoryStore())
    }

    @Test func secretsNeverPrintThemselves() {
        let credential = Credential(server: "s", account: "a", secret: Secret("hunter2-very-secret"))
        for text in [
            "\(credential)", String(describing: credential.secret), String(reflecting: credential),
            String(reflecting: credential.secret),
        ] {
            #expect(!text.contains("hunter2"))
        }
        var dumped = ""
        dump(credential, to: &dumped)
        #expect(!dumped.contains("hunter2"))
    }
}
