// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// Everything a vault file holds: vault's own items (``Credential``, keyed by server,
/// account and kind) and, since format version 2, the items other programs stored through
/// the Secret Service that `vault agent --secret-service` serves (``ServiceItem``), in the
/// collections they were created in (``ServiceCollection``).
///
/// vault's own items live in the `login` collection (``ServiceCollection/loginID``), which
/// always exists and is never stored as a record.
public struct VaultContents: Sendable, Equatable {
    /// vault's own items.
    public var credentials: [CredentialKey: Credential]
    /// The collections other than `login`, by id.
    public var collections: [String: ServiceCollection]
    /// The Secret Service items, by ``ServiceItem/reference``.
    public var items: [ServiceItem.Reference: ServiceItem]

    public init(
        credentials: [CredentialKey: Credential] = [:], collections: [String: ServiceCollection] = [:],
        items: [ServiceItem.Reference: ServiceItem] = [:]
    ) {
        self.credentials = credentials
        self.collections = collections
        self.items = items
    }

    /// True when a version 1 file can hold these contents: no Secret Service item and no
    /// collection but `login`. A file stays at version 1 until it holds one.
    public var fitsVersion1: Bool { collections.isEmpty && items.isEmpty }
}

/// A collection of Secret Service items (`org.freedesktop.Secret.Collection`).
public struct ServiceCollection: Sendable, Equatable {
    /// The collection vault's own items are in, and the `default` alias: `login`.
    public static let loginID = "login"

    /// The last element of the collection's object path: `[A-Za-z0-9_]+`, at most 64 bytes.
    public var id: String
    public var label: String
    /// Seconds since 1970.
    public var created: UInt64
    public var modified: UInt64

    public init(id: String, label: String, created: UInt64, modified: UInt64) {
        self.id = id
        self.label = label
        self.created = created
        self.modified = modified
    }
}

/// An item another program stored through the Secret Service, kept as it gave it.
public struct ServiceItem: Sendable, Equatable {
    /// Where an item is: its collection's id and its own id there.
    public struct Reference: Hashable, Sendable, Comparable {
        public var collection: String
        /// The last element of the item's object path: `[A-Za-z0-9_]+`, at most 64 bytes.
        public var id: String

        public init(collection: String, id: String) {
            self.collection = collection
            self.id = id
        }

        public static func < (lhs: Reference, rhs: Reference) -> Bool { (lhs.collection, lhs.id) < (rhs.collection, rhs.id) }
    }

    public var reference: Reference
    public var label: String
    /// Every attribute the client gave, `xdg:schema` included.
    public var attributes: [String: String]
    /// The secret's content type as the client gave it (`text/plain` by default).
    public var contentType: String
    public var secret: Secret
    /// Seconds since 1970.
    public var created: UInt64
    public var modified: UInt64

    public init(
        reference: Reference, label: String, attributes: [String: String], contentType: String, secret: Secret,
        created: UInt64, modified: UInt64
    ) {
        self.reference = reference
        self.label = label
        self.attributes = attributes
        self.contentType = contentType
        self.secret = secret
        self.created = created
        self.modified = modified
    }
}

/// A store whose whole contents can be read and changed at once: the encrypted file.
/// What `vault agent --secret-service` serves from.
public protocol VaultContentsStore: SecureStore {
    /// The contents now; nil when there is no vault file yet. Reads without the lock
    /// (writers replace the file atomically); decrypts only when the file changed.
    func contents() throws(VaultError) -> VaultContents?

    /// One read-modify-write under the file lock, creating the file when there is none:
    /// `change` returns whether it changed anything (nothing is written otherwise). The
    /// file is written at version 1 while ``VaultContents/fitsVersion1``, else version 2.
    func modifyContents(_ change: (inout VaultContents) throws(VaultError) -> Bool) throws(VaultError)

    /// ``contents()`` with the revision of the snapshot it is: the same revision again
    /// means the same contents, byte for byte. By default every read is a new revision.
    func revisedContents() throws(VaultError) -> (contents: VaultContents, revision: ContentsRevision)?
}

extension VaultContentsStore {
    public func revisedContents() throws(VaultError) -> (contents: VaultContents, revision: ContentsRevision)? {
        try contents().map { ($0, ContentsRevision.next()) }
    }
}
