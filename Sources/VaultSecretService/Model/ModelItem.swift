// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Crypto
import VaultStore

/// One Secret Service item as clients see it: a vault ``Credential`` (in `login`, in the
/// shape docs/secret-service.md describes) or a ``ServiceItem`` as it was stored.
package struct ModelItem: Sendable, Equatable {
    /// The record the item is: what ``ItemPaths`` gives a path.
    enum Source: Sendable, Hashable {
        case credential(CredentialKey)
        case service(ServiceItem.Reference)
    }

    var collection: String
    /// `[A-Za-z0-9_]+`: the last element of the object path (``ItemPaths``).
    var id: String
    var source: Source
    var label: String
    var attributes: [String: String]
    var contentType: String
    var secret: Secret
    var created: UInt64
    var modified: UInt64

    /// `id`: the item's path's last element; the credential's ``id(for:)`` by default.
    init(credential: Credential, id: String? = nil) {
        collection = ServiceCollection.loginID
        self.id = id ?? Self.id(for: credential.key)
        source = .credential(credential.key)
        label = credential.label
        attributes = ServiceItemShape.attributes(for: credential.key)
        contentType = "text/plain"
        secret = credential.secret
        created = 0
        modified = 0
    }

    /// `id`: the item's path's last element; its reference's id by default.
    init(item: ServiceItem, id: String? = nil) {
        collection = item.reference.collection
        self.id = id ?? item.reference.id
        source = .service(item.reference)
        label = item.label
        attributes = item.attributes
        contentType = item.contentType
        secret = item.secret
        created = item.created
        modified = item.modified
    }

    /// A credential's own item id: `v` and 20 hex digits of the SHA-256 of its key, never one
    /// of the ids given to ``ServiceItem``s (`s…`). Its path's last element the first time
    /// a provider sees the key (``ItemPaths``).
    package static func id(for key: CredentialKey) -> String {
        let digest = SHA256.hash(data: Array("\(key.kind.rawValue)\u{0}\(key.server)\u{0}\(key.account)".utf8))
        return "v" + Hex.encode(digest.prefix(10))
    }

    /// Whether every attribute of `query` is one of this item's, byte for byte (gnome-keyring's match).
    func matches(_ query: [String: String]) -> Bool {
        AttributeMatching.matches(attributes, query)
    }

    /// Whether a secret of `contentType` is text, as vault's credentials hold (``ContentType/isText(_:)``).
    static func isText(_ contentType: String) -> Bool { ContentType.isText(contentType) }
}
