// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import HTTPTypes
import VaultAuth
import VaultHTTPClient
import VaultStore

/// The README's "Using the libraries" examples, compiled with the tests: each ```swift
/// block of the README stands here line for line, in one piece (DocsExamplesTests'
/// `swiftBlocksAreCompiled` checks it), so the README cannot show library code that no
/// longer builds. Never called: the examples name a real vault file and a real server.
enum ReadmeLibraryExamples {
    static func storeAndSignIn(token: String, password: String) async throws {
        // The libraries read none of the `vault` command's variables: a program says, in types,
        // where the vault is, where its passphrase comes from and whether keys are cached.
        let locations = StandardLocations(environment: ProcessInfo.processInfo.environment)  // XDG, HOME, D-Bus, systemd
        let store = EncryptedFileStore(
            FileStoreConfiguration(path: locations.defaultVaultFile),
            passphrase: .standard(given: [.file("/run/secrets/vault-passphrase")]),
            keyCache: .kernelKeyring(lifetime: 600))
        try store.save(Credential(server: "api.example.com", account: "ci-bot", secret: Secret(token)))
        let item = try store.load(server: "api.example.com", account: "ci-bot")  // nil when missing
        try store.remove(server: "api.example.com", account: "ci-bot")  // idempotent
        let all = try store.list()  // no secrets

        let session = AuthSession(
            store: store, server: "https://auth.example.com", account: "alice",
            transport: AsyncHTTPTransport())
        try await session.login(
            settings: LoginSettings(serverURL: "https://auth.example.com"),
            password: Secret(password))  // once
        let requester = try await session.requester()  // later, in any process
        let (response, body) = try await requester.send(HTTPRequest(method: .get, url: URL(string: "https://auth.example.com/api/get_devs")!))
        _ = (item, all, response, body)
    }
}
