// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import CLibSecret
import Foundation
import Testing
import VaultTestSupport
import VaultTesting

@testable import VaultStore

/// Runs a program to completion (a `ChildProcess`: bounded, output drained on threads of
/// its own); `environment` nil inherits this process's.
@discardableResult
func runTool(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil, stdin: String? = nil
) throws -> ProcessResult {
    try ChildProcess.run(executable, arguments, environment: environment, stdin: stdin.map { Data($0.utf8) })
}

struct KeyringError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// `SecretServiceStore` against the real GNOME Keyring that `Scripts/with-keyring` runs.
@Suite(.needsKeyring, .offThePool)
struct SecretServiceStoreTests {
    @Test(arguments: StoreContract.Rule.allCases)
    func keepsTheContract(rule: StoreContract.Rule) throws {
        try KeyringTestEnvironment.require()
        let store = try SecretServiceStore(timeout: KeyringTestEnvironment.callBound, itemLockDirectory: KeyringTestEnvironment.lockDirectory)
        #expect(store.backendName == "secret-service")
        try rule.verify(store, namespace: KeyringTestEnvironment.uniqueNamespace("ss-contract"))
    }

    @Test func urlServersAreStoredInTheNetworkPasswordShapeAndListedByTheGivenString() throws {
        try KeyringTestEnvironment.require()
        let store = try SecretServiceStore(timeout: KeyringTestEnvironment.callBound, itemLockDirectory: KeyringTestEnvironment.lockDirectory)
        let host = "\(KeyringTestEnvironment.uniqueNamespace("url")).example.com"
        let server = "https://\(host):8443/path"
        let key = CredentialKey(server: server, account: "carol")
        try store.save(Credential(key: key, secret: Secret("url-secret")))
        defer { try? store.remove(key) }

        // secret-tool (and git) find it by host, protocol, port and path, as git's helper stores them.
        let lookup = try runTool(
            "/usr/bin/secret-tool", ["lookup", "user", "carol", "server", host, "protocol", "https", "port", "8443", "object", "path"])
        #expect(lookup.status == 0)
        #expect(lookup.out == "url-secret")
        let search = try runTool("/usr/bin/secret-tool", ["search", "--all", "user", "carol", "server", host])
        #expect(search.status == 0)
        #expect(
            KeyringTestEnvironment.attributeLines(search.err) == [
                "attribute.user = carol", "attribute.server = \(host)", "attribute.protocol = https", "attribute.port = 8443",
                "attribute.object = path",
            ], "exactly these attributes: \(search.err)")
        #expect(search.out.contains("schema = org.gnome.keyring.NetworkPassword"), "\(search.out)")
        #expect(try runTool("/usr/bin/secret-tool", ["lookup", "user", "carol", "server", server]).status == 1, "no whole URL in server")

        // load and list round-trip the server string as given.
        #expect(try store.load(key)?.secret == Secret("url-secret"))
        #expect(try store.list(server: server) == [CredentialInfo(key: key, label: "vault: carol@\(server)")])
        // Another spelling of the URL is another key.
        #expect(try store.load(CredentialKey(server: server + "/", account: "carol")) == nil)
        #expect(try store.load(CredentialKey(server: "https://\(host):8443", account: "carol")) == nil)
    }

    @Test func bareHostsGetUserAndServerOnly() throws {
        try KeyringTestEnvironment.require()
        let store = try SecretServiceStore(timeout: KeyringTestEnvironment.callBound, itemLockDirectory: KeyringTestEnvironment.lockDirectory)
        let host = "\(KeyringTestEnvironment.uniqueNamespace("bare")).example.com"
        let key = CredentialKey(server: host, account: "carol")
        try store.save(Credential(key: key, secret: Secret("bare-secret")))
        defer { try? store.remove(key) }
        let search = try runTool("/usr/bin/secret-tool", ["search", "--all", "user", "carol", "server", host])
        #expect(search.status == 0)
        #expect(KeyringTestEnvironment.attributeLines(search.err) == ["attribute.user = carol", "attribute.server = \(host)"], "\(search.err)")
        #expect(search.out.contains("secret = bare-secret"))
    }

    @Test func legacyItemsAreReadListedAndRewrittenOnSave() throws {
        try KeyringTestEnvironment.require()
        let store = try SecretServiceStore(timeout: KeyringTestEnvironment.callBound, itemLockDirectory: KeyringTestEnvironment.lockDirectory)
        let host = "\(KeyringTestEnvironment.uniqueNamespace("legacy")).example.com"
        let server = "https://\(host):8443/path"
        let key = CredentialKey(server: server, account: "dora")
        // Not exact (stored first: secret-tool's store replaces items that have all its attributes) (no port): someone else's, never touched.
        let other = ["user", "dora", "server", server, "protocol", "https"]
        #expect(try runTool("/usr/bin/secret-tool", ["store", "--label=not vault's"] + other, stdin: "other-secret").status == 0)
        // Exactly what vault wrote before: the whole URL in server, plus protocol and port.
        let legacy = ["user", "dora", "server", server, "protocol", "https", "port", "8443"]
        #expect(try runTool("/usr/bin/secret-tool", ["store", "--label=old vault"] + legacy, stdin: "old-secret").status == 0)
        defer { _ = try? runTool("/usr/bin/secret-tool", ["clear"] + other) }
        defer { try? store.remove(key) }

        #expect(try store.load(key) == Credential(key: key, secret: Secret("old-secret"), label: "old vault"))
        #expect(try store.list(server: server) == [CredentialInfo(key: key, label: "old vault")])

        try store.save(Credential(key: key, secret: Secret("new-secret")))
        let newShape = ["user", "dora", "server", host, "protocol", "https", "port", "8443", "object", "path"]
        #expect(try runTool("/usr/bin/secret-tool", ["lookup"] + newShape).out == "new-secret")
        let all = try runTool("/usr/bin/secret-tool", ["search", "--all", "user", "dora", "server", server])
        #expect(all.out.components(separatedBy: "secret = ").count == 2, "only the neighbour is left: \(all.out)")
        #expect(all.out.contains("secret = other-secret"))
        #expect(KeyringTestEnvironment.attributeLines(all.err).count == 3, "its attributes are user, server and protocol: \(all.err)")
        #expect(try store.list(server: server) == [CredentialInfo(key: key, label: "vault: dora@\(server)")])

        try store.remove(key)
        #expect(try store.load(key) == nil)
        #expect(try runTool("/usr/bin/secret-tool", ["lookup"] + other).out == "other-secret")
    }

    @Test func findsAndReplacesWhatSecretToolStored() throws {
        try KeyringTestEnvironment.require()
        let store = try SecretServiceStore(timeout: KeyringTestEnvironment.callBound, itemLockDirectory: KeyringTestEnvironment.lockDirectory)
        let server = "\(KeyringTestEnvironment.uniqueNamespace("st")).example.org"
        let stored = try runTool(
            "/usr/bin/secret-tool", ["store", "--label=from secret-tool", "user", "dave", "server", server],
            stdin: "tool-secret")
        #expect(stored.status == 0, "\(stored.err)")
        let key = CredentialKey(server: server, account: "dave")
        let loaded = try #require(try store.load(key))
        #expect(loaded.secret == Secret("tool-secret"))
        #expect(loaded.label == "from secret-tool")
        #expect(try store.list(server: server) == [CredentialInfo(key: key, label: "from secret-tool")])

        // save, without a label of its own, updates that item in place and keeps its label:
        // still one item, the new secret for both tools.
        try store.save(Credential(key: key, secret: Secret("vault-secret")))
        #expect(try store.list(server: server) == [CredentialInfo(key: key, label: "from secret-tool")])
        #expect(try runTool("/usr/bin/secret-tool", ["lookup", "user", "dave", "server", server]).out == "vault-secret")

        try store.remove(key)
        #expect(try runTool("/usr/bin/secret-tool", ["lookup", "user", "dave", "server", server]).status == 1)
    }

    /// A save with a new label leaves one item with the new label and secret. On GNOME
    /// Keyring that item is a new one and vault never sets the old item's `Label` (the
    /// write crashed GNOME Keyring 42 while other clients changed items: docs/secret-service.md);
    /// elsewhere the item keeps its path and gets the label. Seen on the bus with `dbus-monitor`.
    @Test func aNewLabelIsANewItemOnGNOMEKeyringNeverALabelWrite() throws {
        try KeyringTestEnvironment.require()
        let store = try SecretServiceStore(timeout: KeyringTestEnvironment.callBound, itemLockDirectory: KeyringTestEnvironment.lockDirectory)
        let server = "\(KeyringTestEnvironment.uniqueNamespace("relabel")).example.org"
        let key = CredentialKey(server: server, account: "rita")
        try store.save(Credential(key: key, secret: Secret("first"), label: "first label"))
        defer { try? store.remove(key) }
        // The item's whole object path (secret-tool prints only its last part).
        let itemPaths = { () throws -> [String] in
            let search = try runTool(
                "/usr/bin/gdbus",
                [
                    "call", "--session", "--timeout", "10", "--dest", "org.freedesktop.secrets", "--object-path", "/org/freedesktop/secrets",
                    "--method", "org.freedesktop.Secret.Service.SearchItems", "{'user': 'rita', 'server': '\(server)'}",
                ])
            return search.out.split(separator: "'").filter { $0.hasPrefix("/org/freedesktop/secrets/collection/") }.map(String.init)
        }
        let before = try itemPaths()
        let old = try #require(before.first)
        #expect(before.count == 1, "\(before)")

        // Only calls on the old item's path: other tests share the bus.
        let monitor = try ChildProcess.start("/usr/bin/dbus-monitor", ["--session", "type='method_call',path='\(old)'"])
        defer { monitor.kill() }
        #expect(monitor.waitForOutputBlocking(timeout: 10) { $0.contains("NameLost") } != nil, "dbus-monitor did not start")
        try store.save(Credential(key: key, secret: Secret("second"), label: "second label"))

        #expect(try store.list(server: server) == [CredentialInfo(key: key, label: "second label")])
        #expect(try store.load(key)?.secret == Secret("second"))
        let after = try itemPaths()
        if KeyringTestEnvironment.isKeePassXC {
            #expect(after == before, "the item keeps its path")
            let seen = monitor.waitForOutputBlocking(timeout: 10) { $0.contains("member=Set") } ?? monitor.output
            #expect(seen.contains("member=Set"), "\(seen.suffix(2000))")
        } else {
            #expect(after.count == 1 && after != before, "a new item replaced \(before): \(after)")
            let seen = monitor.waitForOutputBlocking(timeout: 10) { $0.contains("member=Delete") } ?? monitor.output
            #expect(seen.contains("member=Delete"), "the old item was deleted: \(seen.suffix(2000))")
            #expect(!seen.contains("member=Set"), "no property of the old item was written: \(seen.suffix(2000))")
        }
    }

    @Test func itemsWithoutUserAndServerAreNotOurs() throws {
        try KeyringTestEnvironment.require()
        let store = try SecretServiceStore(timeout: KeyringTestEnvironment.callBound, itemLockDirectory: KeyringTestEnvironment.lockDirectory)
        let server = "\(KeyringTestEnvironment.uniqueNamespace("foreign")).example.org"
        // A token-like item with other attribute names, and one with a server but no user.
        #expect(
            try runTool("/usr/bin/secret-tool", ["store", "--label=t", "vault-token-server", server, "vault-token-account", "x"], stdin: "t").status
                == 0)
        #expect(try runTool("/usr/bin/secret-tool", ["store", "--label=s", "server", server, "kind", "other"], stdin: "s").status == 0)
        defer {
            _ = try? runTool("/usr/bin/secret-tool", ["clear", "vault-token-server", server])
            _ = try? runTool("/usr/bin/secret-tool", ["clear", "server", server])
        }
        #expect(try store.list(server: server).isEmpty)
        #expect(try store.list().allSatisfy { $0.server != server })
        #expect(try store.load(CredentialKey(server: server, account: "x")) == nil)
    }

    @Test func binaryAndEmptySecretsRoundTrip() throws {
        try KeyringTestEnvironment.require()
        let store = try SecretServiceStore(timeout: KeyringTestEnvironment.callBound, itemLockDirectory: KeyringTestEnvironment.lockDirectory)
        let server = "\(KeyringTestEnvironment.uniqueNamespace("bin")).example.org"
        let binary = Secret(bytes: [0, 1, 2, 0xFF, 0xFE, 0x80, 0x0A, 0])
        try store.save(Credential(server: server, account: "bin", secret: binary))
        try store.save(Credential(server: server, account: "empty", secret: Secret(bytes: [])))
        defer {
            try? store.remove(server: server, account: "bin")
            try? store.remove(server: server, account: "empty")
        }
        #expect(try store.load(server: server, account: "bin")?.secret == binary)
        #expect(try store.load(server: server, account: "empty")?.secret == Secret(bytes: []))
    }

    @Test func concurrentSavesFromManyThreadsAllLand() async throws {
        try KeyringTestEnvironment.require()
        let store = try SecretServiceStore(timeout: KeyringTestEnvironment.callBound, itemLockDirectory: KeyringTestEnvironment.lockDirectory)
        let server = "\(KeyringTestEnvironment.uniqueNamespace("threads")).example.org"
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            do {
                try store.save(Credential(server: server, account: "user\(index)", secret: Secret("secret-\(index)")))
            } catch {
                Issue.record("save \(index) failed: \(error)")
            }
        }
        #expect(try store.list(server: server).map(\.account) == (0..<8).map { "user\($0)" })
        for index in 0..<8 {
            #expect(try store.load(server: server, account: "user\(index)")?.secret == Secret("secret-\(index)"))
            try store.remove(server: server, account: "user\(index)")
        }
    }

    // The locked collection, a missing default collection and a forced Secret Service
    // without a bus are tested end to end in VaultCLITests/SecretServiceCLITests.swift,
    // on separate keyring daemons (the store reads the process's own bus address, so
    // those cases need child processes).
}

/// Automatic backend choice, in-process (the CLI tests time whole processes).
@Suite(.offThePool) struct BackendSelectionTests {
    /// A context on the locations `environment` names (the variables a protocol defines).
    static func context(_ environment: [String: String]) -> BackendContext {
        BackendContext(locations: StandardLocations(environment: environment))
    }

    @Test func forcedBackendsAreNotProbed() throws {
        // A bus that would hang a probe: a forced backend never asks it.
        let hanging = Self.context(["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/socket"])
        #expect(try BackendSelection.decide(requested: .file, context: hanging).kind == .file)
        #expect(try BackendSelection.decide(requested: .file, context: hanging).forced)
        #expect(try BackendSelection.decide(requested: .secretService, context: hanging).kind == .secretService)
        #expect(try BackendSelection.decide(requested: .secretService, context: hanging).viability == nil)
        #expect(try !BackendSelection.decide(requested: .auto, context: Self.context([:])).forced)
    }

    @Test func autoWithoutABusChoosesTheFileAtOnce() throws {
        let cases: [(String?, String)] = [
            (nil, "DBUS_SESSION_BUS_ADDRESS is not set"),
            ("", "DBUS_SESSION_BUS_ADDRESS is not set"),
            ("autolaunch:", "autolaunch"),
            ("unix:path=/nonexistent/socket", "does not answer"),
        ]
        for (address, reason) in cases {
            var environment: [String: String] = ["HOME": NSTemporaryDirectory()]
            environment["DBUS_SESSION_BUS_ADDRESS"] = address
            let start = ContinuousClock.now
            let decision = try BackendSelection.decide(requested: .auto, context: Self.context(environment))
            let elapsed = ContinuousClock.now - start
            print("auto with DBUS_SESSION_BUS_ADDRESS=\(address ?? "(unset)"): \(decision) in \(elapsed)")
            #expect(decision.kind == .file)
            #expect(decision.reason.contains(reason), "\(decision.reason)")
            // Only a hang guard (D-Bus's own wait is 25 s): what is checked is the reason.
            #expect(elapsed < Sanitizer.scaled(.seconds(10)))
        }
    }

    /// A bus that never says whether a Secret Service is on it: `auto` chooses no store (in
    /// doubt, the file may not be where the user's items are) and says how to choose.
    @Test func autoChoosesNoStoreOnABusThatNeverAnswers() throws {
        // A socket that accepts connections and never says a word.
        try withTemporaryDirectory("vault-mute") { directory in
            let path = directory + "/bus"
            let listener = try MuteSocket(path: path)
            defer { listener.close() }
            let start = ContinuousClock.now
            let context = Self.context(["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(path)"])
            let result = Result { () throws(VaultError) -> BackendDecision in
                try BackendSelection.decide(requested: .auto, context: context, probeTimeout: .milliseconds(300))
            }
            print("auto with a mute bus: \(result) after \(ContinuousClock.now - start)")
            switch result {
            case .success(let decision):
                Issue.record("auto chose \(decision) on a bus that never answers")
            case .failure(.remedied(.backendUnavailable(let why), let remedy)):
                #expect(remedy == .chooseBackend)
                #expect(why.contains("did not say within 1500 ms whether a Secret Service is on it"), "\(why)")
            case .failure(let error):
                Issue.record("not backendUnavailable with a remedy: \(error)")
            }
            // Ten times the probe's 1.5 s, far below D-Bus's own 25 s: a hang guard.
            #expect(ContinuousClock.now - start < Sanitizer.scaled(.seconds(15)))
        }
    }

    @Test(.needsKeyring)
    func autoChoosesTheSecretServiceWhenItAnswers() throws {
        try KeyringTestEnvironment.require()
        let start = ContinuousClock.now
        let decision = try BackendSelection.decide(requested: .auto, context: Self.context(ProcessInfo.processInfo.environment))
        print("auto with the test keyring: \(decision) in \(ContinuousClock.now - start)")
        #expect(decision.kind == .secretService)
        #expect(decision.reason.contains("answers"))
    }
}

/// A listening Unix socket that never accepts: connects succeed, nothing is ever said.
struct MuteSocket {
    let fd: Int32

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw KeyringError("socket failed") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw KeyringError("path too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw KeyringError("bind/listen failed") }
    }

    func close() { _ = Glibc.close(fd) }
}

extension SecretServiceStoreTests {
    @Test func otherKindsNeverMatchAPasswordLookup() throws {
        try KeyringTestEnvironment.require()
        let store = try SecretServiceStore(timeout: KeyringTestEnvironment.callBound, itemLockDirectory: KeyringTestEnvironment.lockDirectory)
        let server = "\(KeyringTestEnvironment.uniqueNamespace("kinds")).example.org"
        let password = CredentialKey(server: server, account: "erin")
        let tokens = CredentialKey(server: server, account: "erin", kind: .tokens)
        try store.save(Credential(key: tokens, secret: Secret("token-set")))
        defer { try? store.remove(tokens) }
        #expect(try store.load(password) == nil)
        #expect(try runTool("/usr/bin/secret-tool", ["lookup", "user", "erin", "server", server]).status == 1)
        try store.save(Credential(key: password, secret: Secret("the-password")))
        defer { try? store.remove(password) }
        #expect(try store.load(password)?.secret == Secret("the-password"))
        #expect(try store.load(tokens)?.secret == Secret("token-set"))
        #expect(try store.list(server: server).map(\.key) == [password, tokens])
        try store.remove(password)
        #expect(try store.load(tokens) != nil, "removing the password keeps the tokens")
    }
}

/// The session bus connection closed under the store (issue: a long-running agent whose
/// connection the bus daemon closed failed every call until it restarted).
extension SecretServiceStoreTests {
    @Test func aClosedBusConnectionIsReplacedByTheNextOperation() async throws {
        try KeyringTestEnvironment.require()
        // In a process of its own: closing this process's connection would fail the other
        // keyring tests running beside this one.
        await #expect(processExitsWith: .success) {
            do {
                try SecretServiceStoreTests.operationsAcrossClosedConnections()
            } catch {
                Issue.record("\(error)")  // reported by the parent
                exit(1)
            }
        }
    }

    /// Saves and loads, closes GLib's shared connection (what the bus daemon did), then
    /// saves (updating and creating), loads, lists and removes; then closes the connection
    /// the store moved to, and loads again. Throws at the first surprise.
    static func operationsAcrossClosedConnections() throws {
        let store = try SecretServiceStore(timeout: KeyringTestEnvironment.callBound, itemLockDirectory: KeyringTestEnvironment.lockDirectory)
        let server = "\(KeyringTestEnvironment.uniqueNamespace("bus")).example.org"
        let key = CredentialKey(server: server, account: "frank")
        let tokens = CredentialKey(server: server, account: "frank", kind: .tokens)
        defer {
            try? store.remove(key)
            try? store.remove(tokens)
        }
        func check(_ condition: Bool, _ what: String) throws { if !condition { throw KeyringError(what) } }

        try store.save(Credential(key: key, secret: Secret("before")))
        try check(try store.load(key)?.secret == Secret("before"), "load before the close")

        var error: UnsafeMutablePointer<GError>? = nil
        guard let shared = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else { throw KeyringError("no session bus connection") }
        g_dbus_connection_close_sync(shared, nil, nil)
        g_object_unref(UnsafeMutableRawPointer(shared))

        try store.save(Credential(key: key, secret: Secret("after")))  // updates the item (libsecret's item proxy)
        try check(try store.load(key)?.secret == Secret("after"), "load after the close")
        try store.save(Credential(key: tokens, secret: Secret("token-set")))  // creates one (libsecret's CreateItem)
        try check(try store.load(tokens)?.secret == Secret("token-set"), "load of a new item after the close")
        try check(try store.list(server: server).map(\.key) == [key, tokens], "list after the close")
        try store.remove(tokens)
        try check(try store.load(tokens) == nil, "remove after the close")

        // The connection the store uses now (vault's own when GLib kept the closed one) closes too.
        let current = try SessionBus.connection()
        g_dbus_connection_close_sync(current, nil, nil)
        g_object_unref(UnsafeMutableRawPointer(current))
        try check(try store.load(key)?.secret == Secret("after"), "load after the second close")
        try store.remove(key)
        try check(try store.load(key) == nil, "remove after the second close")
    }
}

/// Two items of one key (a save that once missed the key's item under load created a
/// second): every reader and writer picks the same one, and a save leaves one.
extension SecretServiceStoreTests {
    /// Creates items in the default collection with Python's SecretStorage (no replace, so
    /// two items may have the same attributes) and prints `path created modified` for each.
    static let createItems = #"""
        import json, sys, secretstorage
        connection = secretstorage.dbus_init()
        collection = secretstorage.get_default_collection(connection)
        for item in json.loads(sys.argv[1]):
            made = collection.create_item(item['label'], item['attributes'], item['secret'].encode(), replace=False)
            print(made.item_path, made.get_created(), made.get_modified())
        """#

    /// The items whose attributes include `attributes`: `path secret` each.
    static let searchItems = #"""
        import json, sys, secretstorage
        connection = secretstorage.dbus_init()
        for item in secretstorage.search_items(connection, json.loads(sys.argv[1])):
            print(item.item_path, item.get_secret().decode())
        """#

    static func python(_ script: String, _ argument: Any) throws -> [[Substring]] {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: argument, options: [.sortedKeys]), as: UTF8.self)
        let result = try runTool("/usr/bin/python3", ["-c", script, json])
        guard result.status == 0 else { throw KeyringError("python: \(result.err)") }
        return result.out.split(separator: "\n").map { $0.split(separator: " ") }
    }

    @Test func twoTokenItemsOfOneKeyAreReadAlikeAndSaveLeavesOne() throws {
        try KeyringTestEnvironment.require()
        let store = try SecretServiceStore(timeout: KeyringTestEnvironment.callBound, itemLockDirectory: KeyringTestEnvironment.lockDirectory)
        let server = "\(KeyringTestEnvironment.uniqueNamespace("twins")).example.org"
        let key = CredentialKey(server: server, account: "hank", kind: .tokens)
        let vaults = ["vault-kind": "tokens", "vault-server": server, "vault-account": "hank"]
        let schema = ["xdg:schema": "io.github.vault.Item"]
        // The neighbour: another application's item with vault's attributes and one more.
        let neighbour = vaults.merging(["application": "other"]) { $1 }
        let made = try Self.python(
            Self.createItems,
            [
                ["label": "first", "attributes": vaults.merging(schema) { $1 }, "secret": "first"],
                ["label": "second", "attributes": vaults.merging(schema) { $1 }, "secret": "second"],
                ["label": "not vault's", "attributes": neighbour, "secret": "neighbour"],
            ])
        defer { try? store.remove(key) }
        defer { _ = try? runTool("/usr/bin/secret-tool", ["clear", "application", "other", "vault-server", server]) }
        try #require(made.count == 3 && made.allSatisfy { $0.count == 3 }, "\(made)")

        // The rule of `FoundItem.isPreferred(to:)`: newest Modified, newest Created, greatest path.
        let twins = made.prefix(2).enumerated().map { index, line in
            (secret: index == 0 ? "first" : "second", path: String(line[0]), created: UInt64(line[1])!, modified: UInt64(line[2])!)
        }
        let expected = twins.max { a, b in
            let (rankA, rankB) = ((a.modified, a.created, a.path.utf8.count), (b.modified, b.created, b.path.utf8.count))
            return rankA != rankB ? rankA < rankB : a.path.utf8.lexicographicallyPrecedes(b.path.utf8)
        }!
        for _ in 0..<10 {
            #expect(try store.load(key)?.secret == Secret(expected.secret))
        }

        // Its label kept (each twin's label is its secret), so every keyring updates that item in place.
        try store.save(Credential(key: key, secret: Secret("third"), label: expected.secret))
        let left = try Self.python(Self.searchItems, vaults)
        #expect(left.count == 2, "vault's one item and the neighbour: \(left)")
        #expect(left.contains { $0 == [Substring(expected.path), "third"] }, "the item load read was updated: \(left)")
        #expect(left.contains { $0.count == 2 && $0[1] == "neighbour" }, "the neighbour stays: \(left)")
        #expect(try store.load(key)?.secret == Secret("third"))
    }
}

/// `preferred`'s order, without a keyring.
@Suite(.offThePool) struct PreferredItemTests {
    static func item(_ path: String, _ shape: ItemShape = .current, modified: UInt64 = 100, created: UInt64 = 50) -> SecretServiceStore.FoundItem {
        .init(
            path: path, key: CredentialKey(server: "ex.com", account: "a"), shape: shape, label: path, modified: modified, created: created,
            locked: false)
    }

    @Test func shapeThenModifiedThenCreatedThenTheGreatestPath() {
        let base = "/org/freedesktop/secrets/collection/login/"
        let cases: [(items: [SecretServiceStore.FoundItem], winner: String)] = [
            ([Self.item("a", .plainPair, modified: 200), Self.item("b")], "b"),
            ([Self.item("a", modified: 99, created: 90), Self.item("b", created: 10)], "b"),
            ([Self.item("a", created: 40), Self.item("b", created: 41)], "b"),
            ([Self.item("b", created: 41), Self.item("a", created: 40)], "b"),
            ([Self.item(base + "9"), Self.item(base + "12"), Self.item(base + "10")], base + "12"),
            ([Self.item(base + "10"), Self.item(base + "12"), Self.item(base + "9")], base + "12"),
            ([Self.item(base + "abc"), Self.item(base + "abd")], base + "abd"),
        ]
        for (items, winner) in cases {
            // The same winner whatever order the service lists the items in.
            for order in [items, Array(items.reversed()), Array(items.dropFirst() + items.prefix(1))] {
                #expect(order.preferred?.path == winner, "\(order.map(\.path))")
            }
        }
        #expect([SecretServiceStore.FoundItem]().preferred == nil)
    }
}
