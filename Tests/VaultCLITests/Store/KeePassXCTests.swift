// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// A real KeePassXC of its own, started by `Scripts/with-keepassxc` with the settings a
/// test asks for, on a private session bus. `vault` and `secret-tool` children reach it
/// through `environment`. `stop()` ends it (closing the holder's stdin) and waits.
final class KeePassXCInstance {
    /// KeePassXC's settings that decide whether a client call waits for a dialog.
    struct Settings {
        var confirmDelete = false
        var confirmAccess = false
        var unlockBeforeSearch = false
    }

    let environment: [String: String]
    /// The exposed collection's D-Bus path (the `default` alias).
    let collection: String
    private let holder: ChildProcess
    private let directory: String

    static let packageRoot = PackageRoot.path

    init(_ settings: Settings = Settings(), home: String) throws {
        directory = try TemporaryDirectory.make(prefix: "vault-kpx")
        let ready = "\(directory)/ready"
        var environment = ProcessInfo.processInfo.environment
        environment["VAULT_KEEPASSXC_CONFIRM_DELETE"] = String(settings.confirmDelete)
        environment["VAULT_KEEPASSXC_CONFIRM_ACCESS"] = String(settings.confirmAccess)
        environment["VAULT_KEEPASSXC_UNLOCK_BEFORE_SEARCH"] = String(settings.unlockBeforeSearch)
        // Without autosave: KeePassXC 2.7.4 may die when an item is created or deleted while
        // it saves (Scripts/with-keepassxc says why). Set here, so the caller's value never leaks in.
        environment["VAULT_KEEPASSXC_AUTOSAVE"] = "false"
        // A ChildProcess, so through setsid, as every child of the tests: the script closes
        // the descriptors it inherits, and Foundation takes its copy of its own exit pipe
        // closing as the child's exit (and then waits for it, blocking every other child's
        // bookkeeping).
        holder = try ChildProcess(
            "\(Self.packageRoot)/Scripts/with-keepassxc",
            [
                "/bin/sh", "-c",
                #"printf '%s\n%s\n' "$DBUS_SESSION_BUS_ADDRESS" "$VAULT_KEEPASSXC_COLLECTION" >"$0.tmp" && mv "$0.tmp" "$0"; read -r _"#,
                ready,
            ], environment: environment, keepingStdinOpen: true, stdout: .discarded, stderr: .discarded)
        let deadline = Date().addingTimeInterval(40)
        while !FileManager.default.fileExists(atPath: ready) {
            guard holder.isRunning, Date() < deadline else {
                holder.closeInput()
                TemporaryDirectory.remove(directory)
                throw KeePassXCError("KeePassXC did not come up (Scripts/with-keepassxc exited or took over 40 s)")
            }
            usleep(20_000)
        }
        let lines = try String(contentsOfFile: ready, encoding: .utf8).split(separator: "\n").map(String.init)
        guard lines.count == 2 else { throw KeePassXCError("unexpected ready file: \(lines)") }
        var childEnvironment = VaultProcess.baseEnvironment(home: home)
        childEnvironment["DBUS_SESSION_BUS_ADDRESS"] = lines[0]
        childEnvironment["VAULT_BACKEND"] = "secret-service"
        self.environment = childEnvironment
        collection = lines[1]
    }

    /// Stops KeePassXC and its bus (bounded), and removes the temporary directory.
    func stop() {
        holder.closeInput()
        if !holder.waitForExit(timeout: 15) { holder.kill() }
        TemporaryDirectory.remove(directory)
    }

    /// Runs `body` with a running instance and stops it afterwards.
    static func with<T>(_ settings: Settings = Settings(), home: String, _ body: (KeePassXCInstance) throws -> T) throws -> T {
        let instance = try KeePassXCInstance(settings, home: home)
        defer { instance.stop() }
        return try body(instance)
    }

    /// Locks the database for good (headless, nothing can unlock it again).
    func lock() throws {
        let result = try ChildProcess.start(
            "/usr/bin/gdbus",
            [
                "call", "--session", "--timeout", "10", "--dest", "org.keepassxc.KeePassXC.MainWindow", "--object-path",
                "/keepassxc", "--method", "org.keepassxc.KeePassXC.MainWindow.lockAllDatabases",
            ], environment: environment
        ).finish(timeout: 20)
        guard result.status == 0 else { throw KeePassXCError("lockAllDatabases failed: \(result.err)") }
    }
}

struct KeePassXCError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension SynchronousProcessSuites {
    /// `vault` against a real KeePassXC 2.7 (Debian's), headless, with the settings that
    /// make KeePassXC differ from GNOME Keyring: its listing, its prompts for deletions and
    /// for access to items, its lock, its own attributes and entries. Each test starts an
    /// instance of its own (about a second). The contract suite and the other Secret
    /// Service CLI tests also run against KeePassXC (`Scripts/test`). One test at a time, as
    /// the other KeePassXC passes, each instance without autosave (see `init`).
    @Suite(.serialized, .disabled(if: ProcessInfo.processInfo.environment["VAULT_SKIP_KEYRING_TESTS"] == "1", "VAULT_SKIP_KEYRING_TESTS=1"))
    final class KeePassXCTests {
        let home: String
        let secret = "kpx-secret-91c4-do-not-print"

        init() throws {
            home = try TemporaryDirectory.make(prefix: "vault-kpx-home")
        }

        deinit { TemporaryDirectory.remove(home) }

        func vault(_ kp: KeePassXCInstance, _ args: String..., stdin: String? = nil, timeout: Double = 60) throws -> ProcessResult {
            try VaultProcess.vault(args, environment: kp.environment, stdin: stdin.map { Data($0.utf8) }, timeout: timeout)
        }

        func secretTool(_ kp: KeePassXCInstance, _ args: String..., stdin: String? = nil) throws -> ProcessResult {
            try ChildProcess.start("/usr/bin/secret-tool", args, environment: kp.environment, stdin: stdin.map { Data($0.utf8) })
                .finish(timeout: 20)
        }

        /// `vault ARGS` on a pseudo-terminal (`script`), as a person at a terminal runs it.
        func vaultOnATerminal(_ kp: KeePassXCInstance, _ args: [String], timeout: Double = 60) throws -> (ProcessResult, Double) {
            let command = ([VaultProcess.vaultPath] + args).map { "'\($0)'" }.joined(separator: " ")
            let start = Date()
            let result = try ChildProcess.start(
                "/usr/bin/script", ["-qefc", command + " </dev/null", "/dev/null"], environment: kp.environment
            ).finish(timeout: timeout)
            return (result, Date().timeIntervalSince(start))
        }

        /// One line on stderr, exit `status`, no secret anywhere.
        func expectFailure(
            _ result: ProcessResult, status: Int32, mentions phrases: [String], sourceLocation: SourceLocation = #_sourceLocation
        ) {
            #expect(result.status == status, "exit \(result.status): \(result.err)", sourceLocation: sourceLocation)
            #expect(result.err.split(separator: "\n").count == 1, "one line: \(result.err)", sourceLocation: sourceLocation)
            for phrase in phrases {
                #expect(result.err.contains(phrase), "mentions \(phrase): \(result.err)", sourceLocation: sourceLocation)
            }
            #expect(!result.err.contains("gnome-keyring-daemon"), "KeePassXC is not GNOME Keyring: \(result.err)", sourceLocation: sourceLocation)
            #expect(!(result.out + result.err).contains(secret), "no secret printed", sourceLocation: sourceLocation)
        }

        @Test func listShowsVaultsItemsAndNothingOfKeePassXCsOwn() throws {
            try KeePassXCInstance.with(home: home) { kp in
                #expect(try vault(kp, "save", "--server", "api.example.com", "--account", "alice", stdin: secret).status == 0)
                #expect(try vault(kp, "save", "--server", "https://git.example.com/repo.git", "--account", "bob", stdin: secret).status == 0)
                #expect(
                    try secretTool(kp, "store", "--label=imap", "user", "carol", "server", "mail.example.com", "protocol", "imap", stdin: "imap")
                        .status == 0)

                let listed = try vault(kp, "list")
                #expect(listed.status == 0, "\(listed.err)")
                #expect(
                    listed.out == """
                        api.example.com\talice\tvault: alice@api.example.com
                        https://git.example.com/repo.git\tbob\tvault: bob@https://git.example.com/repo.git
                        imap://mail.example.com\tcarol\timap

                        """, "KeePassXC's own entry and attributes are not listed as vault's: \(listed.out)")
                let json = try vault(kp, "list", "--json")
                #expect(json.status == 0)
                let decoded = try JSONSerialization.jsonObject(with: json.stdout) as? [[String: String]]
                #expect(decoded?.map { $0["account"] ?? "" } == ["alice", "bob", "carol"])
                #expect(decoded?.map { $0["label"] ?? "" }.contains("KeePassXC's own entry") == false)
                let one = try vault(kp, "list", "--server", "api.example.com")
                #expect(one.out == "api.example.com\talice\tvault: alice@api.example.com\n")
                #expect(!(listed.out + json.out + one.out).contains(secret))
            }
        }

        @Test func neighboursOfEveryKindSurviveSaveAndRemoveByteForByte() throws {
            try KeePassXCInstance.with(home: home) { kp in
                let neighbours: [[String]] = [
                    ["protocol", "imap"], ["protocol", "smtp"], ["port", "8443"], ["object", "repo.git"],
                    ["authtype", "ntlm"], ["domain", "CORP"], ["xdg:schema", "org.other.App"],
                    ["protocol", "https", "port", "8443", "object", "repo.git"],
                ]
                for (index, extra) in neighbours.enumerated() {
                    let stored = try ChildProcess.start(
                        "/usr/bin/secret-tool", ["store", "--label=n\(index)", "user", "alice", "server", "ex.com"] + extra,
                        environment: kp.environment, stdin: Data("neighbour-\(index)".utf8)
                    ).finish(timeout: 20)
                    #expect(stored.status == 0, "\(extra): \(stored.err)")
                }
                let before = try secretTool(kp, "search", "--all", "user", "alice", "server", "ex.com")
                #expect(try vault(kp, "save", "--server", "ex.com", "--account", "alice", stdin: secret).status == 0)
                #expect(try vault(kp, "save", "--server", "ex.com", "--account", "alice", stdin: secret + "2").status == 0)
                #expect(try vault(kp, "load", "--server", "ex.com", "--account", "alice").out == secret + "2")
                #expect(try vault(kp, "remove", "--server", "ex.com", "--account", "alice").status == 0)
                let after = try secretTool(kp, "search", "--all", "user", "alice", "server", "ex.com")
                #expect(after.out == before.out && after.err == before.err, "every neighbour as it was:\n\(before.out)\n---\n\(after.out)")
                #expect(try secretTool(kp, "lookup", "Title", "KeePassXC's own entry").out == "keepassxc-own-secret")
            }
        }

        @Test func removeWithoutConfirmationDeletesOnlyVaultsItem() throws {
            try KeePassXCInstance.with(home: home) { kp in
                #expect(
                    try secretTool(kp, "store", "--label=imap", "user", "alice", "server", "ex.com", "protocol", "imap", stdin: "imap-secret").status
                        == 0)
                #expect(try vault(kp, "save", "--server", "ex.com", "--account", "alice", stdin: secret).status == 0)
                let removed = try vault(kp, "remove", "--server", "ex.com", "--account", "alice")
                #expect(removed.status == 0, "\(removed.err)")
                #expect(try vault(kp, "load", "--server", "ex.com", "--account", "alice").status == 1)
                // The neighbour and KeePassXC's own entry are untouched.
                #expect(try secretTool(kp, "lookup", "user", "alice", "server", "ex.com", "protocol", "imap").out == "imap-secret")
                #expect(try secretTool(kp, "lookup", "Title", "KeePassXC's own entry").out == "keepassxc-own-secret")
            }
        }

        @Test func anUnconfirmedDeletionFailsAtOnceHeadlessAndTheItemStays() throws {
            try KeePassXCInstance.with(.init(confirmDelete: true), home: home) { kp in
                #expect(try vault(kp, "save", "--server", "ex.com", "--account", "alice", stdin: secret).status == 0)
                // Headless, vault does not wait for a person: such a wait meets the bound (an issue).
                let removed = try vault(kp, "remove", "--server", "ex.com", "--account", "alice", timeout: 20)
                expectFailure(removed, status: 3, mentions: ["KeePassXC", "confirm", "still there", "Confirm when clients request entry deletion"])
                let loaded = try vault(kp, "load", "--server", "ex.com", "--account", "alice")
                #expect(loaded.status == 0 && loaded.out == secret, "the item is still there")
                // --no-prompt on a terminal is headless too.
                let (forced, _) = try vaultOnATerminal(kp, ["remove", "--server", "ex.com", "--account", "alice", "--no-prompt"])
                #expect(forced.status == 3, "\(forced.out)")
                #expect(!forced.out.contains("waiting up to"), "\(forced.out)")
            }
        }

        @Test func anUnconfirmedDeletionAtATerminalIsAnnouncedAndBounded() throws {
            try KeePassXCInstance.with(.init(confirmDelete: true), home: home) { kp in
                #expect(try vault(kp, "save", "--server", "ex.com", "--account", "alice", stdin: secret).status == 0)
                let (removed, elapsed) = try vaultOnATerminal(
                    kp, ["remove", "--server", "ex.com", "--account", "alice", "--prompt-timeout", "2"], timeout: 40)
                // script(1) merges the terminal's output: the announcement, then the failure.
                #expect(removed.status == 3, "\(removed.out)")
                #expect(removed.out.contains("KeePassXC asks to confirm deleting \"vault: alice@ex.com\""), "\(removed.out)")
                #expect(removed.out.contains("waiting up to 2 s"), "\(removed.out)")
                #expect(removed.out.contains("nobody answered within 2 s"), "\(removed.out)")
                #expect(removed.out.contains("still there"), "\(removed.out)")
                #expect(elapsed >= 2, "it waited for the person (\(elapsed) s)")
                #expect(try vault(kp, "load", "--server", "ex.com", "--account", "alice").out == secret, "the item is still there")
            }
        }

        @Test func aSaveWhoseCleanupIsNotConfirmedStillSucceeds() throws {
            try KeePassXCInstance.with(.init(confirmDelete: true), home: home) { kp in
                // What vault wrote before (the whole URL in server): save rewrites it in the
                // new shape and deletes the old item, which KeePassXC wants confirmed.
                let legacy = ["user", "alice", "server", "https://ex.com:8443/repo", "protocol", "https", "port", "8443"]
                #expect(
                    try ChildProcess.start(
                        "/usr/bin/secret-tool", ["store", "--label=old"] + legacy, environment: kp.environment,
                        stdin: Data("old-secret".utf8)
                    ).finish(timeout: 20).status == 0)
                let saved = try vault(kp, "save", "--server", "https://ex.com:8443/repo", "--account", "alice", stdin: secret, timeout: 30)
                #expect(saved.status == 0, "the secret is saved: \(saved.err)")
                let loaded = try vault(kp, "load", "--server", "https://ex.com:8443/repo", "--account", "alice")
                #expect(loaded.status == 0 && loaded.out == secret, "load prefers the new item: \(loaded.err)")
            }
        }

        @Test func noOpenDatabaseGetsKeePassXCsAdvice() throws {
            try KeePassXCInstance.with(home: home) { kp in
                let closed = try ChildProcess.start(
                    "/usr/bin/gdbus",
                    [
                        "call", "--session", "--timeout", "10", "--dest", "org.keepassxc.KeePassXC.MainWindow", "--object-path",
                        "/keepassxc", "--method", "org.keepassxc.KeePassXC.MainWindow.closeAllDatabases",
                    ], environment: kp.environment
                ).finish(timeout: 20)
                #expect(closed.status == 0, "\(closed.err)")
                let listed = try vault(kp, "list", timeout: 30)
                expectFailure(listed, status: 4, mentions: ["KeePassXC has no default collection", "open and unlock a database in KeePassXC"])
            }
        }

        @Test func accessToAnItemAnotherProcessMadeNeedsApproval() throws {
            try KeePassXCInstance.with(.init(confirmAccess: true), home: home) { kp in
                #expect(try secretTool(kp, "store", "--label=theirs", "user", "alice", "server", "ex.com", stdin: "their-secret").status == 0)
                let loaded = try vault(kp, "load", "--server", "ex.com", "--account", "alice", timeout: 30)
                expectFailure(
                    loaded, status: 3,
                    mentions: ["KeePassXC has not allowed vault to use \"theirs\"", "Confirm when passwords are retrieved by clients"])
                #expect(!loaded.err.contains("is locked"), "not a lock: \(loaded.err)")
                #expect(!loaded.out.contains("their-secret"))
                // An update is refused the same way, and the secret is unchanged.
                let saved = try vault(kp, "save", "--server", "ex.com", "--account", "alice", stdin: secret, timeout: 30)
                expectFailure(saved, status: 3, mentions: ["has not allowed vault", "nothing was read or changed"])
                // Listing needs no access to secrets.
                #expect(try vault(kp, "list").out == "ex.com\talice\ttheirs\n")
                // At a terminal, vault says what KeePassXC asks and waits, boundedly.
                let (asked, elapsed) = try vaultOnATerminal(
                    kp, ["load", "--server", "ex.com", "--account", "alice", "--prompt-timeout", "2"], timeout: 40)
                #expect(asked.status == 3, "\(asked.out)")
                #expect(asked.out.contains("KeePassXC asks whether vault may use \"theirs\""), "\(asked.out)")
                #expect(asked.out.contains("nobody answered within 2 s"), "\(asked.out)")
                #expect(!asked.out.contains("their-secret"))
                #expect(elapsed >= 2, "it waited for the person (\(elapsed) s)")
            }
        }

        @Test func aLockedDatabaseFailsFastAndNamesKeePassXC() throws {
            try KeePassXCInstance.with(home: home) { kp in
                #expect(try vault(kp, "save", "--server", "ex.com", "--account", "alice", stdin: secret).status == 0)
                try kp.lock()
                for args in [["load"], ["save"], ["remove"], ["list"]] {
                    let item = args[0] == "list" ? [] : ["--server", "ex.com", "--account", "alice"]
                    // Fails fast: a wait on the unlock dialog meets the bound (an issue).
                    let result = try VaultProcess.vault(
                        args + item, environment: kp.environment, stdin: args[0] == "save" ? Data(secret.utf8) : nil, timeout: 20)
                    expectFailure(result, status: 3, mentions: ["KeePassXC's default collection", "is locked", "unlock the database in KeePassXC"])
                }
                // At a terminal, vault shows KeePassXC's unlock prompt and waits, boundedly.
                let (asked, elapsed) = try vaultOnATerminal(
                    kp, ["load", "--server", "ex.com", "--account", "alice", "--prompt-timeout", "2"], timeout: 40)
                #expect(asked.status == 3, "\(asked.out)")
                #expect(asked.out.contains("KeePassXC asks to unlock its default collection"), "\(asked.out)")
                #expect(asked.out.contains("nobody answered within 2 s"), "\(asked.out)")
                #expect(elapsed >= 2, "it waited for the person (\(elapsed) s)")
            }
        }

        @Test func unlockBeforeSearchOnALockedDatabaseNeverHangs() throws {
            try KeePassXCInstance.with(.init(unlockBeforeSearch: true), home: home) { kp in
                #expect(try vault(kp, "save", "--server", "ex.com", "--account", "alice", stdin: secret).status == 0)
                try kp.lock()
                // No search waits on the unlock dialog: such a wait meets the bound (an issue).
                let loaded = try vault(kp, "load", "--server", "ex.com", "--account", "alice", timeout: 20)
                expectFailure(loaded, status: 3, mentions: ["is locked"])
            }
        }

        @Test func binaryAndNULSecretsRoundTripAndStayVaults() throws {
            try KeePassXCInstance.with(home: home) { kp in
                let binary = Data([0x61, 0x00, 0x62, 0xFF, 0xFE, 0x0A, 0x00])
                let saved = try VaultProcess.vault(
                    ["save", "--server", "bin.example", "--account", "a"], environment: kp.environment, stdin: binary + Data("\n".utf8))
                #expect(saved.status == 0, "\(saved.err)")
                let loaded = try vault(kp, "load", "--server", "bin.example", "--account", "a")
                #expect(loaded.status == 0, "\(loaded.err)")
                #expect(loaded.stdout == binary)
                #expect(try vault(kp, "list").out == "bin.example\ta\tvault: a@bin.example\n")
                #expect(try vault(kp, "remove", "--server", "bin.example", "--account", "a").status == 0)
                #expect(try vault(kp, "load", "--server", "bin.example", "--account", "a").status == 1)
                // Valid UTF-8 that KeePassXC would not keep as text (a NUL, a leading BOM)
                // goes as binary: a BOM would be dropped at once, and a NUL cut in the saved
                // file (what KeePassXC serves until it restarts keeps it: the content type
                // is what shows the difference).
                for (account, bytes) in [("nul", Data("a\u{0}b".utf8)), ("bom", Data([0xEF, 0xBB, 0xBF]) + Data("bom".utf8))] {
                    let stored = try VaultProcess.vault(
                        ["save", "--server", "text.example", "--account", account], environment: kp.environment, stdin: bytes)
                    #expect(stored.status == 0, "\(stored.err)")
                    #expect(try vault(kp, "load", "--server", "text.example", "--account", account).stdout == bytes, "\(account)")
                    let search = try secretTool(kp, "search", "--all", "user", account, "server", "text.example")
                    #expect(search.err.contains("FDO_SECRETS_CONTENT_TYPE = application/octet-stream"), "\(account): \(search.err)")
                }
            }
        }
    }
}
