import Synchronization

/// A store that keeps items in memory only, for other tools' tests and for caches.
/// It keeps the same contract as the persistent backends.
public final class InMemoryStore: SecureStore {
    private let items = Mutex<[CredentialKey: Credential]>([:])

    public init(_ credentials: [Credential] = []) {
        items.withLock { items in
            for credential in credentials { items[credential.key] = credential }
        }
    }

    public var backendName: String { "memory" }

    public func save(_ credential: Credential) throws(VaultError) {
        let key = try credential.key.validated()
        items.withLock { $0[key] = credential }
    }

    public func load(_ key: CredentialKey) throws(VaultError) -> Credential? {
        items.withLock { $0[key] }
    }

    public func remove(_ key: CredentialKey) throws(VaultError) {
        _ = items.withLock { $0.removeValue(forKey: key) }
    }

    public func list(server: String?) throws(VaultError) -> [CredentialInfo] {
        items.withLock { items in
            items.values.filter { server == nil || $0.server == server }.map(\.info).sorted()
        }
    }
}
