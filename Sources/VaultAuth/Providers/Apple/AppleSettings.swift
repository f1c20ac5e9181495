// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultStore

/// What a Sign in with Apple account needs besides the client id: the developer's team,
/// the key that signs the client secret, and where Apple's endpoints are. Kept inside the
/// account's settings item (so inside the secure store), like an OAuth client secret.
public struct AppleSettings: Sendable, Equatable, Codable {
    /// The Apple developer team id: the client secret's `iss`.
    public var teamID: String
    /// The id of the key (`AuthKey_<KEYID>.p8`): the client secret's `kid`.
    public var keyID: String
    /// The private key, PKCS#8 PEM (the `.p8` file's text); never written outside the secure store.
    public var privateKey: Secret
    /// The base of Apple's endpoints, `https://appleid.apple.com` unless a test server stands in.
    public var baseURL: String

    /// Apple's own base URL.
    public static let defaultBaseURL = "https://appleid.apple.com"
    /// The audience Apple requires in every client secret, whatever `baseURL` is.
    public static let clientSecretAudience = "https://appleid.apple.com"

    /// Settings for `teamID` and `keyID`, with `privateKey` (PEM) and Apple's endpoints under `baseURL`.
    public init(teamID: String, keyID: String, privateKey: Secret, baseURL: String = AppleSettings.defaultBaseURL) {
        self.teamID = teamID
        self.keyID = keyID
        self.privateKey = privateKey
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
    }

    private enum CodingKeys: String, CodingKey { case teamID, keyID, privateKey, baseURL }

    /// The stored form keeps the key as text (the whole settings document is a secret item).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(teamID, forKey: .teamID)
        try container.encode(keyID, forKey: .keyID)
        try container.encode(privateKey.utf8String ?? "", forKey: .privateKey)
        try container.encode(baseURL, forKey: .baseURL)
    }

    /// Decodes the stored form.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        teamID = try container.decode(String.self, forKey: .teamID)
        keyID = try container.decode(String.self, forKey: .keyID)
        privateKey = Secret(try container.decode(String.self, forKey: .privateKey))
        baseURL = try container.decode(String.self, forKey: .baseURL)
    }
}

/// The name and e-mail address Apple gives the app only at a user's first sign-in (the
/// seed's nuance 2). Stored in the settings item before the code exchange, so a failed or
/// interrupted exchange does not lose them, and kept until the caller says its own
/// backend has registered the user (``AuthSession/markRegistered()``).
///
/// A profile belongs to one Apple user: the first sign-in that succeeds with it binds it
/// to that sign-in's `sub` (``subject``), and a later sign-in of another user drops it, so
/// one person's name and address are never registered under another's id.
public struct PendingProfile: Sendable, Equatable, Codable {
    /// The user's name as the app received it ("Given Family"), when it did.
    public var name: String?
    /// The e-mail address as the app received it (possibly a private relay address).
    public var email: String?
    /// The `sub` of the sign-in that brought it, once that sign-in has succeeded; nil while
    /// it waits for its exchange (or a retry of it) to succeed.
    public var subject: String?

    enum CodingKeys: String, CodingKey {
        case name, email
        case subject = "sub"
    }

    /// A profile; empty strings count as absent.
    public init(name: String?, email: String?, subject: String? = nil) {
        self.name = name.flatMap { $0.isEmpty ? nil : $0 }
        self.email = email.flatMap { $0.isEmpty ? nil : $0 }
        self.subject = subject
    }

    /// True when neither a name nor an e-mail address is known.
    public var isEmpty: Bool { name == nil && email == nil }

    /// This profile with `later`'s values where `later` has some: a later sign-in without a
    /// name (Apple sends none after the first) never erases the one kept.
    public func updated(with later: PendingProfile?) -> PendingProfile {
        PendingProfile(name: later?.name ?? name, email: later?.email ?? email, subject: subject)
    }

    /// What is kept after a sign-in of `subject` succeeded: this profile bound to it when
    /// it was waiting for its sign-in, unchanged when it is already that user's, and nil
    /// when it is another user's.
    public func bound(to subject: String) -> PendingProfile? {
        switch self.subject {
        case nil: PendingProfile(name: name, email: email, subject: subject)
        case subject: self
        default: nil
        }
    }
}
