// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// The bounds on what clients may ask of the provider; beyond them a call fails with
/// `InvalidArgs` (sizes) or `LimitsExceeded` (prompts), and the provider keeps serving.
/// Sessions past their bounds close the oldest instead (``ProviderState/add(_:owner:)``).
enum Limits {
    static let sessionsPerClient = 256
    static let sessions = 4096
    static let promptsPerClient = 16
    static let attributesPerItem = 256
    /// Bytes of one attribute name or value.
    static let attributeSize = 4096
    /// Bytes of a label.
    static let labelSize = 4096
    /// Bytes of a content type.
    static let contentTypeSize = 256
    /// Bytes of a secret.
    static let secretSize = 1 << 20
    /// Object paths in one call (`GetSecrets`, `Unlock`, `Lock`).
    static let pathsPerCall = 4096

    /// Checks an attribute set.
    static func check(attributes: [String: String]) throws(ServiceFault) {
        guard attributes.count <= attributesPerItem else { throw .invalidArgs("more than \(attributesPerItem) attributes") }
        for (name, value) in attributes where name.utf8.count > attributeSize || value.utf8.count > attributeSize {
            throw .invalidArgs("an attribute name or value is longer than \(attributeSize) bytes")
        }
    }

    /// Checks a label.
    static func check(label: String) throws(ServiceFault) {
        guard label.utf8.count <= labelSize else { throw .invalidArgs("the label is longer than \(labelSize) bytes") }
    }
}
