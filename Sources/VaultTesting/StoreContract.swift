// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Testing
import VaultStore

/// The contract every `SecureStore` backend keeps, one function a rule, for any backend
/// (vault's own and other tools'). Each rule starts from a store with no items on its
/// servers (`NAMESPACE.example.org` and `other-NAMESPACE.example.org`), and removes what it
/// saved, so rules may run one after another on one store (`verifyAll`) or each on a
/// store of its own (a parameterised test over `Rule.allCases`):
///
///     @Test(arguments: StoreContract.Rule.allCases)
///     func keepsTheContract(rule: StoreContract.Rule) throws {
///         try rule.verify(MyStore())
///     }
public enum StoreContract {
    /// The rules, in the order `verifyAll` checks them.
    public enum Rule: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case missingItemsAreNilAndRemovable
        case saveThenLoadRoundTrips
        case saveUpdatesInPlace
        case keysAreExact
        case listIsMetadataOnlyFilteredAndSorted
        case unicodeAndAwkwardBytesSurvive
        case invalidInputIsRefusedAndNothingStored
        case itemKindsAreSeparate
        case removeIsExactAndIdempotent

        public var testDescription: String { rawValue }

        /// Checks this rule on `store` (see `StoreContract` for what it may assume).
        public func verify(_ store: some SecureStore, namespace: String = "contract") throws {
            let keys = Keys(namespace: namespace)
            defer { keys.removeAll(from: store) }
            switch self {
            case .missingItemsAreNilAndRemovable: try StoreContract.missingItemsAreNilAndRemovable(store, keys)
            case .saveThenLoadRoundTrips: try StoreContract.saveThenLoadRoundTrips(store, keys)
            case .saveUpdatesInPlace: try StoreContract.saveUpdatesInPlace(store, keys)
            case .keysAreExact: try StoreContract.keysAreExact(store, keys)
            case .listIsMetadataOnlyFilteredAndSorted: try StoreContract.listIsMetadataOnlyFilteredAndSorted(store, keys)
            case .unicodeAndAwkwardBytesSurvive: try StoreContract.unicodeAndAwkwardBytesSurvive(store, keys)
            case .invalidInputIsRefusedAndNothingStored: try StoreContract.invalidInputIsRefusedAndNothingStored(store, keys)
            case .itemKindsAreSeparate: try StoreContract.itemKindsAreSeparate(store, keys)
            case .removeIsExactAndIdempotent: try StoreContract.removeIsExactAndIdempotent(store, keys)
            }
        }
    }

    /// Checks every rule on `store`, one after another.
    public static func verifyAll(_ store: some SecureStore, namespace: String = "contract") throws {
        for rule in Rule.allCases { try rule.verify(store, namespace: namespace) }
    }

    /// The keys the rules use.
    public struct Keys: Sendable {
        public let server: String
        public let alice: CredentialKey
        public let bob: CredentialKey
        /// alice's account on another server.
        public let other: CredentialKey
        public let unicode: CredentialKey
        public let tokens: CredentialKey
        public let settings: CredentialKey

        public init(namespace: String) {
            server = "\(namespace).example.org"
            alice = CredentialKey(server: server, account: "alice")
            bob = CredentialKey(server: server, account: "bob")
            other = CredentialKey(server: "other-\(server)", account: "alice")
            unicode = CredentialKey(server: server, account: "zoë 🙂")
            tokens = CredentialKey(server: server, account: "alice", kind: .tokens)
            settings = CredentialKey(server: server, account: "alice", kind: .settings)
        }

        /// Removes every item a rule may have saved (after a rule, also a failed one).
        func removeAll(from store: some SecureStore) {
            for key in [alice, bob, other, unicode, tokens, settings] { try? store.remove(key) }
        }
    }

    /// load of a missing item is nil, remove of a missing item succeeds.
    public static func missingItemsAreNilAndRemovable(_ store: some SecureStore, _ keys: Keys) throws {
        #expect(try store.load(keys.alice) == nil)
        try store.remove(keys.alice)
        #expect(try store.list(server: keys.server).isEmpty)
    }

    /// save then load round-trips secret and label; the default label.
    public static func saveThenLoadRoundTrips(_ store: some SecureStore, _ keys: Keys) throws {
        try store.save(Credential(key: keys.alice, secret: Secret("first secret"), label: "Alice's login"))
        let loaded = try #require(try store.load(keys.alice))
        #expect(loaded.secret == Secret("first secret"))
        #expect(loaded.label == "Alice's login")
        #expect(loaded.key == keys.alice)
        try store.save(Credential(key: keys.bob, secret: Secret("bob's")))
        #expect(try store.load(keys.bob)?.label == "vault: bob@\(keys.server)")
    }

    /// save updates in place: one item, the new secret.
    public static func saveUpdatesInPlace(_ store: some SecureStore, _ keys: Keys) throws {
        try store.save(Credential(key: keys.alice, secret: Secret("first secret"), label: "Alice's login"))
        try store.save(Credential(key: keys.alice, secret: Secret("second secret"), label: "Alice's login"))
        #expect(try store.load(keys.alice)?.secret == Secret("second secret"))
        #expect(try store.list(server: keys.server).filter { $0.account == "alice" }.count == 1)
    }

    /// keys are exact: the same account on another server is another item.
    public static func keysAreExact(_ store: some SecureStore, _ keys: Keys) throws {
        try store.save(Credential(key: keys.alice, secret: Secret("second secret"), label: "Alice's login"))
        #expect(try store.load(keys.other) == nil)
        try store.save(Credential(key: keys.other, secret: Secret("other")))
        #expect(try store.load(keys.alice)?.secret == Secret("second secret"))
        #expect(try store.load(keys.other)?.secret == Secret("other"))
    }

    /// list: metadata only (`CredentialInfo` has no secret), filtered by server, sorted.
    public static func listIsMetadataOnlyFilteredAndSorted(_ store: some SecureStore, _ keys: Keys) throws {
        try store.save(Credential(key: keys.bob, secret: Secret("bob's")))
        try store.save(Credential(key: keys.alice, secret: Secret("second secret"), label: "Alice's login"))
        try store.save(Credential(key: keys.other, secret: Secret("other")))
        let listed: [CredentialInfo] = try store.list(server: keys.server)
        #expect(listed.map(\.account) == ["alice", "bob"])
        #expect(listed.allSatisfy { $0.kind == .password })
        #expect(listed.allSatisfy { $0.server == keys.server })
        let all = try store.list(server: nil)
        #expect(all.contains { $0.key == keys.other })
    }

    /// unicode and awkward bytes survive.
    public static func unicodeAndAwkwardBytesSurvive(_ store: some SecureStore, _ keys: Keys) throws {
        try store.save(Credential(key: keys.unicode, secret: Secret("pä$$ wörd\twith tab and trailing space ")))
        #expect(try store.load(keys.unicode)?.secret == Secret("pä$$ wörd\twith tab and trailing space "))
    }

    /// invalid input is refused with invalidInput, nothing stored.
    public static func invalidInputIsRefusedAndNothingStored(_ store: some SecureStore, _ keys: Keys) throws {
        let server = keys.server
        // (Only these servers' items: other tests may share a real keyring meanwhile.)
        let badKeys = [
            CredentialKey(server: "", account: "x"), CredentialKey(server: server, account: "a\u{0}b"),
            CredentialKey(server: server, account: ""), CredentialKey(server: "s\u{1B}[2J", account: "x"),
        ]
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
    }

    /// kinds are separate items: a token item never replaces or shadows the password.
    public static func itemKindsAreSeparate(_ store: some SecureStore, _ keys: Keys) throws {
        try store.save(Credential(key: keys.alice, secret: Secret("second secret"), label: "Alice's login"))
        try store.save(Credential(key: keys.tokens, secret: Secret("{\"accessToken\":\"t\"}")))
        try store.save(Credential(key: keys.settings, secret: Secret("{}")))
        #expect(try store.load(keys.alice)?.secret == Secret("second secret"))
        #expect(try store.load(keys.tokens)?.secret == Secret("{\"accessToken\":\"t\"}"))
        #expect(try store.load(keys.tokens)?.key.kind == .tokens)
        #expect(
            try store.list(server: keys.server).filter { $0.account == "alice" }.map(\.kind).sorted() == [.password, .tokens, .settings])
        try store.remove(keys.tokens)
        try store.remove(keys.settings)
        #expect(try store.load(keys.tokens) == nil)
        #expect(try store.load(keys.alice) != nil)
    }

    /// remove deletes exactly one item and is idempotent.
    public static func removeIsExactAndIdempotent(_ store: some SecureStore, _ keys: Keys) throws {
        for key in [keys.alice, keys.bob, keys.other, keys.unicode] {
            try store.save(Credential(key: key, secret: Secret("s")))
        }
        try store.remove(keys.alice)
        #expect(try store.load(keys.alice) == nil)
        #expect(try store.load(keys.bob) != nil)
        try store.remove(keys.alice)
        try store.remove(keys.bob)
        try store.remove(keys.other)
        try store.remove(keys.unicode)
        #expect(try store.list(server: keys.server).isEmpty)
    }
}
