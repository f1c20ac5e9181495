// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultStore
import VaultTestSupport

extension SynchronousProcessSuites {
    /// End-to-end tests of `vault` on the Secret Service backend: real child processes, the
    /// real GNOME Keyring that `Scripts/with-keyring` runs, and real `secret-tool`. Without a
    /// Secret Service they are skipped, saying so (``Testing/Trait/needsKeyring``); inside
    /// `Scripts/with-keyring` one that does not answer fails them.
    // One test at a time, as before the suites left the pool: several of them drive the
    // keyring hard (a dozen writers at once), and GNOME Keyring then answered the others'
    // first calls past vault's bound.
    @Suite(.serialized, .needsKeyring)
    final class SecretServiceCLITests {
        let dir: String
        let secret = "ss-secret-5d1c-do-not-print"
        /// A server name no other test (or run) uses.
        let server: String

        init() throws {
            dir = try TemporaryDirectory.make(prefix: "vault-ss-cli")
            server = "ss-\(getpid())-\(UUID().uuidString.prefix(8).lowercased()).example.com"
            try KeyringTestEnvironment.require()
        }

        deinit { TemporaryDirectory.remove(dir) }

        /// Automatic backend choice with the test keyring's bus; a file path that must stay unused.
        var env: [String: String] {
            var env = VaultProcess.baseEnvironment(home: dir)
            env["VAULT_FILE"] = "\(dir)/must-not-exist/vault.db"
            return env
        }

        func vault(_ args: String..., stdin: String? = nil, env: [String: String]? = nil) throws -> ProcessResult {
            try VaultProcess.vault(args, environment: env ?? self.env, stdin: stdin.map { Data($0.utf8) })
        }

        func secretTool(_ args: String..., stdin: String? = nil, env: [String: String]? = nil) throws -> ProcessResult {
            try ChildProcess.start("/usr/bin/secret-tool", args, environment: env ?? self.env, stdin: stdin.map { Data($0.utf8) })
                .finish(timeout: 30)
        }

        func expectNoLeak(_ result: ProcessResult, allowSecretOnStdout: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(!result.err.contains(secret), "leak on stderr", sourceLocation: sourceLocation)
            if !allowSecretOnStdout { #expect(!result.out.contains(secret), "leak on stdout", sourceLocation: sourceLocation) }
        }

        @Test func vaultSaveThenSecretToolLookup() throws {
            let saved = try vault("save", "--server", server, "--account", "A", "--verbose", stdin: secret + "\n")
            #expect(saved.status == 0, "\(saved.err)")
            #expect(saved.err.contains("secret-service"), "verbose names the backend: \(saved.err)")
            expectNoLeak(saved)
            let lookup = try secretTool("lookup", "user", "A", "server", server)
            #expect(lookup.status == 0)
            #expect(lookup.out == secret)
            let search = try secretTool("search", "--all", "user", "A", "server", server)
            #expect((search.out + search.err).contains("label = vault: A@\(server)"))
            #expect(try vault("remove", "--server", server, "--account", "A").status == 0)
            #expect(!FileManager.default.fileExists(atPath: "\(dir)/must-not-exist"), "the file backend was not used")
        }

        @Test func secretToolStoreThenVaultLoadAndList() throws {
            let stored = try secretTool("store", "--label=L", "user", "A", "server", server, stdin: secret)
            #expect(stored.status == 0, "\(stored.err)")
            let loaded = try vault("load", "--server", server, "--account", "A", "-v")
            #expect(loaded.status == 0, "\(loaded.err)")
            #expect(loaded.out == secret)
            expectNoLeak(loaded, allowSecretOnStdout: true)
            let listed = try vault("list", "--server", server, "-v")
            #expect(listed.status == 0)
            #expect(listed.out == "\(server)\tA\tL\n")
            expectNoLeak(listed)

            // vault remove, then secret-tool finds nothing (exit 1).
            let removed = try vault("remove", "--server", server, "--account", "A", "-v")
            #expect(removed.status == 0)
            expectNoLeak(removed)
            let lookup = try secretTool("lookup", "user", "A", "server", server)
            #expect(lookup.status == 1)
            #expect(lookup.out.isEmpty)
            let missing = try vault("load", "--server", server, "--account", "A")
            #expect(missing.status == 1)
            #expect(missing.err.split(separator: "\n").count == 1)
        }

        @Test func autoChoosesTheSecretServiceWhenItAnswers() throws {
            let result = try vault("backend")
            #expect(result.status == 0)
            #expect(result.out.hasPrefix("secret-service\t"), "\(result.out)")
        }

        @Test(arguments: [nil, "unix:path=/nonexistent/socket"] as [String?])
        func autoFallsBackToTheFileFast(address: String?) throws {
            var env = self.env
            env["DBUS_SESSION_BUS_ADDRESS"] = address
            // Fast: D-Bus's own 25 s would meet the process's bound of 20 s (an issue).
            let result = try VaultProcess.vault(["backend"], environment: env, timeout: 20)
            #expect(result.status == 0)
            #expect(result.out.hasPrefix("file\t"), "\(result.out)")
            #expect(result.out.contains(address == nil ? "DBUS_SESSION_BUS_ADDRESS is not set" : "does not answer"))

            // Forcing the Secret Service there fails fast with exit 4 and one clear line.
            let forced = try VaultProcess.vault(
                ["load", "--server", server, "--account", "A", "--backend", "secret-service"], environment: env, timeout: 20)
            #expect(forced.status == 4)
            #expect(forced.err.contains("Secret Service"))
            #expect(forced.err.split(separator: "\n").count == 1)
        }

        @Test func lockedCollectionExits3Fast() throws {
            let keyring = try CLISeparateKeyring()
            defer { keyring.stop() }
            let env = keyring.environment(self.env)
            #expect(try vault("save", "--server", server, "--account", "A", stdin: secret, env: env).status == 0)
            try keyring.lock()

            for command in [
                ["load", "--server", server, "--account", "A"], ["load", "--server", server, "--account", "nobody"],
                ["save", "--server", server, "--account", "A"], ["remove", "--server", server, "--account", "A"], ["list"],
            ] {
                // At once: a wait on a prompt or on D-Bus's own 25 s meets the bound of 20 s.
                let result = try VaultProcess.vault(command + ["-v"], environment: env, stdin: Data("new-\(secret)".utf8), timeout: 20)
                #expect(result.status == 3, "\(command): \(result.err)")
                #expect(result.err.contains("locked"))
                #expect(result.out.isEmpty)
                #expect(!result.err.contains(secret))
            }
            // Still locked, nothing prompted or unlocked it.
            #expect(try keyring.isLocked())
        }

        /// A keyring that is there but slow (stopped here, as a loaded machine delays it past
        /// the probe's 2 s) is waited for, never traded for the file: on the file, `remove`
        /// said "no vault file" and exited 0 with the item still in the keyring.
        @Test func aKeyringThatIsThereButSlowIsNeverTradedForTheFile() throws {
            let keyring = try CLISeparateKeyring()
            defer { keyring.stop() }
            let env = keyring.environment(self.env)
            #expect(try vault("save", "--server", server, "--account", "A", stdin: secret, env: env).status == 0)
            let daemon = try keyring.servicePID()
            #expect(kill(daemon, SIGSTOP) == 0)
            defer { kill(daemon, SIGCONT) }

            let chosen = try VaultProcess.vault(["backend"], environment: env, timeout: 120)
            #expect(chosen.status == 0, "\(chosen.err)")
            #expect(chosen.out.hasPrefix("secret-service\t"), "\(chosen.out)")
            #expect(chosen.out.contains("is owned on the session bus but did not answer within"), "\(chosen.out)")
            // Each call waits within its bound, then one line and exit 4; nothing removed.
            let removed = try VaultProcess.vault(["remove", "--server", server, "--account", "A"], environment: env, timeout: 120)
            #expect(removed.status == 4, "\(removed.err)")
            #expect(removed.err.split(separator: "\n").count == 1, "\(removed.err)")
            #expect(removed.err.contains("Secret Service"), "\(removed.err)")
            #expect(removed.err.contains("(try again once it answers; if your items are in the vault file, use --backend file)"))

            #expect(kill(daemon, SIGCONT) == 0)
            try expectTheItemKeptAndNoFile(env: env)
        }

        /// Account A is still in the keyring that `env` names, and no vault file was made.
        func expectTheItemKeptAndNoFile(env: [String: String], sourceLocation: SourceLocation = #_sourceLocation) throws {
            let loaded = try vault("load", "--server", server, "--account", "A", env: env)
            #expect(loaded.status == 0, "\(loaded.err)", sourceLocation: sourceLocation)
            #expect(loaded.out == secret, "the item is still in the keyring", sourceLocation: sourceLocation)
            #expect(
                !FileManager.default.fileExists(atPath: "\(dir)/must-not-exist"), "the file backend was not used",
                sourceLocation: sourceLocation)
        }

        /// A session bus that does not say whether a keyring is on it (its daemon stopped, as a
        /// loaded machine delays it): no store is chosen, one line says how to choose, and
        /// nothing is removed. On the file, `remove` exited 0 with the item still there.
        @Test func aSilentBusChoosesNoStore() throws {
            let keyring = try CLISeparateKeyring()
            defer { keyring.stop() }
            let env = keyring.environment(self.env)
            #expect(try vault("save", "--server", server, "--account", "A", stdin: secret, env: env).status == 0)
            let bus = try keyring.busPID()
            #expect(kill(bus, SIGSTOP) == 0)
            defer { kill(bus, SIGCONT) }

            let commands = [
                ["backend"], ["remove", "--server", server, "--account", "A"], ["load", "--server", server, "--account", "A"], ["lock"],
            ]
            for command in commands {
                let result = try VaultProcess.vault(command, environment: env, timeout: 120)
                #expect(result.status == 4, "\(command): \(result.err)")
                #expect(result.out.isEmpty, "\(command): \(result.out)")
                #expect(result.err.split(separator: "\n").count == 1, "\(command): \(result.err)")
                #expect(result.err.contains("did not say within"), "\(command): \(result.err)")
                #expect(result.err.contains("--backend secret-service or --backend file"), "\(command): \(result.err)")
                #expect(!result.err.contains(secret))
            }
            // Forced, the keyring may well be there: the advice is to try again, not the file alone.
            let forced = try VaultProcess.vault(
                ["load", "--server", server, "--account", "A", "--backend", "secret-service"], environment: env, timeout: 120)
            #expect(forced.status == 4, "\(forced.err)")
            #expect(forced.err.split(separator: "\n").count == 1, "\(forced.err)")
            #expect(forced.err.contains("(try again once it answers; if your items are in the vault file, use --backend file)"))

            #expect(kill(bus, SIGCONT) == 0)
            try expectTheItemKeptAndNoFile(env: env)
        }

        /// `vault backend` prints one tab-separated line per answer: a tab, a newline or a
        /// terminal escape in the bus address (or a service's error text) is escaped.
        @Test func backendEscapesWhatOthersWrote() throws {
            var env = self.env
            env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/a\tb\nc\u{1b}[31m"
            let result = try VaultProcess.vault(["backend"], environment: env, timeout: 60)
            #expect(result.status == 0, "\(result.err)")
            let lines = result.out.split(separator: "\n")
            #expect(lines.count == 2, "\(result.out)")
            #expect(lines.allSatisfy { $0.split(separator: "\t", omittingEmptySubsequences: false).count == 2 }, "\(result.out)")
            #expect(result.out.contains("a\\tb\\nc\\x1b[31m"), "\(result.out)")
        }

        @Test func missingDefaultCollectionExits4AndCreatesNone() throws {
            let keyring = try CLISeparateKeyring()
            defer { keyring.stop() }
            let deleted = try keyring.gdbus([
                "--object-path", "/org/freedesktop/secrets/collection/login", "--method", "org.freedesktop.Secret.Collection.Delete",
            ])
            #expect(deleted.status == 0, "\(deleted.err)")
            let env = keyring.environment(self.env)
            for command in [["load", "--server", server, "--account", "A"], ["save", "--server", server, "--account", "A"], ["list"]] {
                let result = try VaultProcess.vault(command, environment: env, stdin: Data(secret.utf8), timeout: 20)
                #expect(result.status == 4, "\(command): \(result.err)")
                #expect(result.err.contains("no default collection"))
            }
            let alias = try keyring.gdbus([
                "--object-path", "/org/freedesktop/secrets", "--method", "org.freedesktop.Secret.Service.ReadAlias", "default",
            ])
            #expect(alias.out.contains("'/'"), "no collection was created: \(alias.out)")
        }

        @Test func severalProcessesSavingAtOnceAllLand() throws {
            let count = 8
            let running = try (0..<count).map { index in
                try ChildProcess.start(
                    VaultProcess.vaultPath, ["save", "--server", server, "--account", "user\(index)"], environment: env,
                    stdin: Data("\(secret)-\(index)".utf8))
            }
            for (index, process) in running.enumerated() {
                let result = try process.finish(timeout: 60)
                #expect(result.status == 0, "save \(index): \(result.err)")
            }
            let listed = try vault("list", "--server", server)
            #expect(listed.out.split(separator: "\n").map { $0.split(separator: "\t")[1] } == (0..<count).map { "user\($0)"[...] })
            for index in 0..<count {
                #expect(try vault("load", "--server", server, "--account", "user\(index)").out == "\(secret)-\(index)")
                #expect(try vault("remove", "--server", server, "--account", "user\(index)").status == 0)
            }
        }

        /// A keyring's replace is not atomic across clients: twelve saves of one account at
        /// once left three identical items in GNOME Keyring before vault's writers of one
        /// item took turns (`ItemWriteLock`). Ten rounds of twelve, each from no item: one
        /// item each time.
        @Test func twelveConcurrentSavesOfOneAccountLeaveOneItem() throws {
            for round in 0..<10 {
                let running = try (0..<12).map { index in
                    try ChildProcess.start(
                        VaultProcess.vaultPath, ["save", "--server", server, "--account", "A"], environment: env,
                        stdin: Data("\(secret)-\(round)-\(index)".utf8))
                }
                for (index, process) in running.enumerated() {
                    let result = try process.finish(timeout: 60)
                    #expect(result.status == 0, "round \(round), save \(index): \(result.err)")
                }
                let search = try secretTool("search", "--all", "user", "A", "server", server)
                let items = (search.out + search.err).split(separator: "\n").filter { $0.hasPrefix("[/") }
                #expect(items.count == 1, "round \(round): \(items.count) items: \(search.out)")
                let loaded = try vault("load", "--server", server, "--account", "A")
                #expect(loaded.status == 0 && (0..<12).map { "\(secret)-\(round)-\($0)" }.contains(loaded.out), "round \(round): \(loaded.err)")
                // The next round starts with no item: the race is between creators.
                #expect(try vault("remove", "--server", server, "--account", "A").status == 0)
                let left = try secretTool("search", "--all", "user", "A", "server", server)
                #expect(!(left.out + left.err).contains("[/"), "round \(round), removed: \(left.out)")
                if items.count != 1 { break }
            }
        }

        /// The secret of a load travels in a `plain` session with GNOME Keyring (which lets
        /// every client of the session read every item anyway) and in an encrypted one with
        /// KeePassXC (which may refuse a client): seen on the bus with `dbus-monitor`.
        @Test func theSecretTravelsInTheSessionTheServiceCallsFor() throws {
            #expect(try vault("save", "--server", server, "--account", "A", stdin: secret).status == 0)
            let monitor = try ChildProcess.start("/usr/bin/dbus-monitor", ["--session"], environment: env)
            defer { monitor.kill() }
            // dbus-monitor loses its names once it has become a monitor (NameAcquired comes first).
            #expect(monitor.waitForOutputBlocking(timeout: 10) { $0.contains("NameLost") } != nil, "dbus-monitor did not start")
            let loaded = try vault("load", "--server", server, "--account", "A")
            #expect(loaded.status == 0, "\(loaded.err)")
            #expect(loaded.out == secret)
            // The monitor sees every client of the shared bus (other tests' GetSecret too): wait
            // for a session's algorithm, which the load, done by now, sent.
            let opened = ["string \"plain\"", "\"dh-ietf1024-sha256-aes128-cbc-pkcs7\""]
            let seen = monitor.waitForOutputBlocking(timeout: 10) { output in opened.contains { output.contains($0) } } ?? monitor.output
            #expect(seen.contains("member=OpenSession") || seen.contains("member=GetSecret"), "the monitor saw the load: \(seen.suffix(2000))")
            if KeyringTestEnvironment.isKeePassXC {
                #expect(seen.contains("\"dh-ietf1024-sha256-aes128-cbc-pkcs7\""), "an encrypted session with KeePassXC")
                #expect(!seen.contains("string \"plain\""))
                #expect(!seen.contains(secret), "the secret never crosses the bus in the clear with KeePassXC")
            } else {
                #expect(seen.contains("string \"plain\""), "a plain session with GNOME Keyring: \(seen.suffix(2000))")
            }
            _ = try vault("remove", "--server", server, "--account", "A")
        }

        /// Another client creating and deleting the same item over and over (secret-tool, a
        /// loop): a load finds it or not (0 or 1) and a save lands (0), never "backend
        /// unavailable" for an item that vanished between the search and the read or write.
        @Test func anItemVanishingMidOperationIsNotAnOutage() throws {
            // On GNOME Keyring, a daemon of its own: this test hammers it, and when the shared
            // daemon segfaulted mid-churn (once, in a fresh-clone run), every test using it
            // then failed too. The KeePassXC passes run one test at a time.
            let keyring = KeyringTestEnvironment.isKeePassXC ? nil : try CLISeparateKeyring()
            defer { keyring?.stop() }
            let env = keyring?.environment(self.env) ?? self.env
            let churn = try ChildProcess.start(
                "/bin/sh",
                [
                    "-c", "while :; do printf x | secret-tool store --label=c user A server \"$0\"; secret-tool clear user A server \"$0\"; done",
                    server,
                ],
                environment: env)
            defer {
                churn.kill()
                // vault, not secret-tool: once in six runs against KeePassXC a `secret-tool
                // clear` right after the churn waited past 30 s; vault's calls are bounded.
                _ = try? vault("remove", "--server", server, "--account", "A", env: env)
            }
            var statuses: [Int32: Int] = [:]
            for round in 0..<60 {
                let result =
                    round % 2 == 0
                    ? try vault("load", "--server", server, "--account", "A", env: env)
                    : try vault("save", "--server", server, "--account", "A", stdin: secret, env: env)
                statuses[result.status, default: 0] += 1
                #expect([0, 1].contains(result.status), "round \(round): \(result.status) \(result.err)")
                expectNoLeak(result, allowSecretOnStdout: true)
            }
            #expect(statuses[0, default: 0] > 0, "\(statuses)")
        }

        /// Where vault cannot name the service (another PID namespace, as in a container that
        /// shares the session bus: the bus owner's pid means nothing there), a new label is a
        /// new item too, never the `Label` write that can crash GNOME Keyring (attack review 42).
        @Test(.enabled(if: !KeyringTestEnvironment.isKeePassXC && PIDNamespace.available))
        func aServiceVaultCannotNameIsNeverRelabelledInPlace() throws {
            #expect(try vault("save", "--server", server, "--account", "N", "--label", "one", stdin: secret).status == 0)
            defer { _ = try? vault("remove", "--server", server, "--account", "N") }
            let monitor = try ChildProcess.start(
                "/usr/bin/dbus-monitor", ["--session", "type='method_call',interface='org.freedesktop.DBus.Properties',member='Set'"],
                environment: env)
            defer { monitor.kill() }
            #expect(monitor.waitForOutputBlocking(timeout: 10) { $0.contains("NameLost") } != nil, "dbus-monitor did not start")
            let saved = try ChildProcess.run(
                "/usr/bin/unshare",
                ["--pid", "--fork", "--mount-proc", VaultProcess.vaultPath, "save", "--server", server, "--account", "N", "--label", "two"],
                environment: env, stdin: Data((secret + "2").utf8))
            #expect(saved.status == 0, "\(saved.err)")
            expectNoLeak(saved)
            // A Set the monitor must see after any Set of the save (to a path no object has).
            _ = try ChildProcess.run(
                "/usr/bin/gdbus",
                [
                    "call", "--session", "--timeout", "5", "--dest", "org.freedesktop.secrets", "--object-path", "/vault/test/marker",
                    "--method", "org.freedesktop.DBus.Properties.Set", "org.freedesktop.Secret.Item", "Label", "<'marker-4f1e'>",
                ], environment: env)
            let seen = monitor.waitForOutputBlocking(timeout: 10) { $0.contains("marker-4f1e") } ?? monitor.output
            #expect(seen.contains("marker-4f1e"), "the monitor saw the marker: \(seen.suffix(2000))")
            #expect(!seen.contains("\"two\""), "no Label write: \(seen.suffix(2000))")
            let listed = try vault("list", "--server", server)
            #expect(listed.out == "\(server)\tN\ttwo\n", "one item, the new label: \(listed.out)")
            #expect(try vault("load", "--server", server, "--account", "N").out == secret + "2")
        }

        @Test func noSecretInOutputOrVerboseLogs() throws {
            var outputs: [ProcessResult] = []
            outputs.append(try vault("save", "--server", server, "--account", "A", "--label", "leak check", "-v", stdin: secret))
            outputs.append(try vault("list", "--json", "-v"))
            outputs.append(try vault("backend", "-v"))
            let loaded = try vault("load", "--server", server, "--account", "A", "-v")
            outputs.append(try vault("remove", "--server", server, "--account", "A", "-v"))
            outputs.append(try vault("load", "--server", server, "--account", "A", "-v"))
            #expect(loaded.out == secret)
            expectNoLeak(loaded, allowSecretOnStdout: true)
            for result in outputs { expectNoLeak(result) }
            #expect(outputs.last?.status == 1)
        }
    }
}

/// A separate GNOME Keyring on its own private bus (`Scripts/with-keyring` as a child),
/// which a test may lock without disturbing the keyring the other tests share.
final class CLISeparateKeyring: @unchecked Sendable {
    let running: RunningKeyringProcess
    let address: String

    init() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        environment["VAULT_KEYRING_HOME"] = nil
        running = try RunningKeyringProcess(
            script: PackageRoot.appending("Scripts/with-keyring"), environment: environment)
        address = running.firstLine
        guard address.hasPrefix("unix:") else {
            running.stop()
            throw CLIKeyringError("the separate keyring did not start")
        }
    }

    func environment(_ base: [String: String]) -> [String: String] {
        var environment = base
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        return environment
    }

    func gdbus(_ arguments: [String]) throws -> ProcessResult {
        try ChildProcess.start(
            "/usr/bin/gdbus", ["call", "--session", "--timeout", "5", "--dest", "org.freedesktop.secrets"] + arguments,
            environment: environment(["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()])
        ).finish(timeout: 30)
    }

    /// The process id of the keyring daemon that owns `org.freedesktop.secrets` on this bus.
    func servicePID() throws -> pid_t { try pid(of: "org.freedesktop.secrets") }

    /// The process id of the bus daemon itself.
    func busPID() throws -> pid_t { try pid(of: "org.freedesktop.DBus") }

    private func pid(of name: String) throws -> pid_t {
        let result = try ChildProcess.start(
            "/usr/bin/gdbus",
            [
                "call", "--session", "--timeout", "5", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                "--method", "org.freedesktop.DBus.GetConnectionUnixProcessID", name,
            ],
            environment: environment(["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()])
        ).finish(timeout: 30)
        // "(uint32 1234,)"
        let digits = result.out.split(whereSeparator: { !$0.isNumber }).last.flatMap { pid_t($0) }
        guard result.status == 0, let digits, digits > 1 else { throw CLIKeyringError("no keyring daemon pid: \(result.out)\(result.err)") }
        return digits
    }

    func lock() throws {
        let result = try gdbus([
            "--object-path", "/org/freedesktop/secrets", "--method", "org.freedesktop.Secret.Service.Lock",
            "['/org/freedesktop/secrets/collection/login']",
        ])
        guard result.status == 0, try isLocked() else { throw CLIKeyringError("Lock failed: \(result.err)") }
    }

    func isLocked() throws -> Bool {
        try gdbus([
            "--object-path", "/org/freedesktop/secrets/collection/login", "--method",
            "org.freedesktop.DBus.Properties.Get", "org.freedesktop.Secret.Collection", "Locked",
        ]).out.contains("true")
    }

    func stop() { running.stop() }
}

/// `Scripts/with-keyring sh -c 'print the bus address; wait for stdin to close'`.
final class RunningKeyringProcess: Sendable {
    let child: ChildProcess
    let firstLine: String

    init(script: String, environment: [String: String]) throws {
        child = try ChildProcess(
            script, ["/bin/sh", "-c", "printf '%s\\n' \"$DBUS_SESSION_BUS_ADDRESS\"; exec cat >/dev/null"],
            environment: environment, keepingStdinOpen: true,
            stderr: .discarded)  // daemons must not hold the runner's pipes
        let shown = child.waitForOutputBlocking(timeout: 60) { $0.contains("\n") } ?? child.output
        firstLine = String(shown.prefix { $0 != "\n" }).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func stop() {
        child.closeInput()
        if !child.waitForExit(timeout: 10) {
            // with-keyring's traps stop the daemon and remove its directories.
            child.terminate()
        }
        child.process.waitUntilExit()
    }
}

struct CLIKeyringError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Whether this process may run a command in a PID namespace of its own (`unshare --pid`
/// needs CAP_SYS_ADMIN): read from /proc, so that deciding starts no child on the pool.
enum PIDNamespace {
    static let available: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare"),
            let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("CapEff:") }),
            let mask = UInt64(line.dropFirst("CapEff:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return mask & (1 << 21) != 0
    }()
}
