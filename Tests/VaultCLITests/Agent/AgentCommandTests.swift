// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// `vault agent` as a process: its socket and directory, a second agent, `--check`, bad
/// flags, SIGTERM, socket activation and `sd_notify`, another uid.
@Suite("vault agent, the process", .offThePool) struct AgentCommandTests {
    /// A private directory for one test, with the agent's socket path inside (in a
    /// subdirectory the agent makes) and an environment naming it.
    struct Place {
        let directory: String
        var socketDirectory: String { directory + "/run" }
        var socket: String { socketDirectory + "/agent.sock" }
        var environment: [String: String] {
            var environment = VaultProcess.fileBackendEnvironment(home: directory, file: directory + "/vault.db", passphrase: "agent-test-passphrase")
            environment["VAULT_AGENT_SOCKET"] = socket
            return environment
        }
    }

    static func withPlace<T>(_ body: (Place) async throws -> T) async throws -> T {
        try await withTemporaryDirectory("vault-agent-cli") { directory in try await body(Place(directory: directory)) }
    }

    /// Starts `vault agent -v ARGS` (stderr into the output) and waits until it serves.
    static func startAgent(_ place: Place, _ arguments: [String] = [], environment: [String: String]? = nil) async throws -> ChildProcess {
        let agent = try ChildProcess(
            VaultProcess.vaultPath, ["agent", "-v"] + arguments, environment: environment ?? place.environment, stderr: .intoStdout)
        let ready = try await agent.waitForOutput(timeout: 60) { $0.contains("serving at") }
        if ready == nil {
            agent.kill()
            Issue.record("the agent did not start: \(agent.output)")
            throw CancellationError()
        }
        return agent
    }

    /// `vault agent --check` with `environment`.
    static func check(_ environment: [String: String]) async throws -> ProcessResult {
        try await VaultProcess.vaultAsync(["agent", "--check"], environment: environment, timeout: 30)
    }

    @Test("the agent makes its directory 0700 and socket 0600, answers --check, refuses a second agent, stops on SIGTERM")
    func lifecycle() async throws {
        try await Self.withPlace { place in
            let absent = try await Self.check(place.environment)
            #expect(absent.status == 4 && absent.out.isEmpty, "\(absent.err)")
            #expect(
                absent.err.hasPrefix("vault: no agent answers at \(place.socket)") && absent.err.split(separator: "\n").count == 1, "\(absent.err)")

            let agent = try await Self.startAgent(place)
            defer { agent.kill() }
            var status = stat()
            #expect(lstat(place.socketDirectory, &status) == 0 && status.st_mode & 0o777 == 0o700)
            #expect(lstat(place.socket, &status) == 0 && status.st_mode & 0o777 == 0o600 && status.st_mode & S_IFMT == S_IFSOCK)

            // Start-up's pages given back once it serves (docs/agent.md, "Memory"); it answers afterwards.
            // Locked memory (RLIMIT_MEMLOCK of 1 GiB or more: no "memory is not locked" line) is not reclaimed.
            let released = try #require(try await agent.waitForOutput(timeout: 30) { $0.contains(" KiB of start-up pages") }, "\(agent.output)")
            #expect(!released.contains("advised the kernel to reclaim 0 KiB") || !released.contains("memory is not locked"), "\(released)")
            let answered = try await Self.check(place.environment)
            #expect(answered.status == 0 && answered.out.hasPrefix("vault-agent ") && answered.out.hasSuffix("\n"), "\(answered.out) \(answered.err)")
            // The release `vault --version` prints, and the wire format's version (issue 37: it said "vault-agent 1").
            let release = try await VaultProcess.vaultAsync(["--version"], environment: place.environment, timeout: 30)
            #expect(answered.out == "vault-agent \(release.out.trimmingCharacters(in: .whitespacesAndNewlines)) (protocol 1)\n", "\(answered.out)")

            let second = try await VaultProcess.vaultAsync(["agent"], environment: place.environment, timeout: 30)
            #expect(second.status == 4, "\(second.err)")
            #expect(second.err == "vault: an agent already runs at \(place.socket)\n", "\(second.err)")

            agent.terminate()
            let result = try await agent.finishAsync(timeout: 30)
            #expect(result.status == 0 && !result.signalled, "\(agent.output)")
            #expect(access(place.socket, F_OK) != 0, "the socket is removed")
            #expect(try await Self.check(place.environment).status == 4)
        }
    }

    @Test("a stale socket (the agent was killed) is replaced; SIGINT stops the agent too")
    func staleSocketIsReplaced() async throws {
        try await Self.withPlace { place in
            let first = try await Self.startAgent(place)
            first.kill()
            _ = try await first.finishAsync(timeout: 30)
            #expect(access(place.socket, F_OK) == 0, "SIGKILL leaves the socket")
            let second = try await Self.startAgent(place)
            defer { second.kill() }
            #expect(try await Self.check(place.environment).status == 0)
            kill(ChildProcess.descendants(of: second.process.processIdentifier).first ?? second.process.processIdentifier, SIGINT)
            let result = try await second.finishAsync(timeout: 30)
            #expect(result.status == 0, "\(second.output)")
        }
    }

    @Test("an unsafe socket directory, a path too long or a file in the way: exit 4, one line naming the path")
    func unsafePlacesAreRefused() async throws {
        try await Self.withPlace { place in
            mkdir(place.socketDirectory, 0o755)
            chmod(place.socketDirectory, 0o755)
            let open = try await VaultProcess.vaultAsync(["agent"], environment: place.environment, timeout: 30)
            #expect(open.status == 4 && open.err.contains(place.socketDirectory) && open.err.contains("755"), "\(open.err)")
            #expect(open.err.split(separator: "\n").count == 1)

            chmod(place.socketDirectory, 0o700)
            #expect(FileManager.default.createFile(atPath: place.socket, contents: Data("x".utf8)))
            let file = try await VaultProcess.vaultAsync(["agent"], environment: place.environment, timeout: 30)
            #expect(file.status == 4 && file.err == "vault: \(place.socket) cannot be used: it is not a socket\n", "\(file.err)")
            #expect(FileManager.default.fileExists(atPath: place.socket), "a file that is not a socket is left alone")

            var long = place.environment
            long["VAULT_AGENT_SOCKET"] = place.directory + "/" + String(repeating: "s", count: 120)
            let tooLong = try await VaultProcess.vaultAsync(["agent"], environment: long, timeout: 30)
            #expect(tooLong.status == 4 && tooLong.err.contains("longer than 107"), "\(tooLong.err)")

            // A token file in a directory others may write (no sticky bit): they could replace it.
            unlink(place.socket)
            let shared = place.directory + "/shared"
            mkdir(shared, 0o777)
            chmod(shared, 0o777)
            let token = try await VaultProcess.vaultAsync(
                ["agent", "--token-file", shared + "/api.token=ann@https://auth.example.com"], environment: place.environment, timeout: 30)
            #expect(token.status == 4 && token.err.contains(shared + "/api.token") && token.err.contains("others can write"), "\(token.err)")
            #expect(token.err.split(separator: "\n").count == 1 && !FileManager.default.fileExists(atPath: shared + "/api.token"))
        }
    }

    /// Attack review of the agent (issue 37): a token file naming the vault file replaced
    /// the encrypted vault with an access token, and one naming the passphrase file the
    /// passphrase.
    @Test(
        "a token file naming the vault file, its lock, a passphrase file, the socket, etcd's key, a lock file: exit 2, one line, nothing touched"
    )
    func tokenFileOnVaultsOwnFiles() async throws {
        try await Self.withPlace { place in
            let vault = place.directory + "/vault.db"
            let passphraseFile = place.directory + "/passphrase"
            #expect(FileManager.default.createFile(atPath: vault, contents: Data("not a token".utf8)))
            #expect(FileManager.default.createFile(atPath: passphraseFile, contents: Data("agent-test-passphrase".utf8)))
            var environment = place.environment
            environment["VAULT_PASSPHRASE"] = nil
            environment["VAULT_PASSPHRASE_FILE"] = passphraseFile
            // Attack review 47: etcd's client key and the lock files were not on the list.
            let locks = place.directory + "/locks"
            mkdir(locks, 0o700)
            environment["VAULT_LOCK_DIR"] = locks
            environment["VAULT_ETCD_KEY"] = place.directory + "/etcd-client.key"
            mkdir(place.socketDirectory, 0o700)
            symlink(place.directory, place.directory + "/alias")
            let cases = [
                (vault, "it is the vault file"), (place.directory + "/alias/vault.db", "it is the vault file"),
                (vault + ".lock", "it is the vault file's lock"), (passphraseFile, "it is a passphrase file"),
                (place.socket, "it is the agent's socket"), (place.directory + "/etcd-client.key", "it is etcd's client key"),
                (locks + "/item-5e.lock", "it is in vault's lock directory (VAULT_LOCK_DIR), \(locks)"),
                (place.directory + "/refresh-77.lock", "it is one of vault's lock or temporary files (refresh-77.lock)"),
            ]
            for (path, reason) in cases {
                let result = try await VaultProcess.vaultAsync(
                    ["agent", "--token-file", path + "=ann@https://auth.example.com"], environment: environment, timeout: 30)
                #expect(result.status == 2, "\(path): \(result.err)")
                #expect(result.err == "vault: refusing the token file \(path): \(reason); choose a file of its own\n", "\(result.err)")
            }
            #expect(try String(contentsOfFile: vault, encoding: .utf8) == "not a token")
            #expect(try String(contentsOfFile: passphraseFile, encoding: .utf8) == "agent-test-passphrase")
            #expect(access(place.socket, F_OK) != 0, "nothing listens")
        }
    }

    /// Attack review 48, finding 4: `--token-file` naming another vault file of the user.
    @Test("a token file naming a file that holds no token (another vault, a passphrase): exit 2, one line, the file kept")
    func tokenFileOnAFileOfTheUsers() async throws {
        try await Self.withPlace { place in
            mkdir(place.socketDirectory, 0o700)
            let files: [(String, [UInt8])] = [
                (place.directory + "/work.vault", [0x89, 0x56, 0x4C, 0x54, 0x0D, 0x0A, 0x1A, 0x0A, 0, 1, 0xFF]),
                (place.directory + "/work.passphrase", Array("correct horse\n".utf8)),
            ]
            for (path, content) in files {
                #expect(FileManager.default.createFile(atPath: path, contents: Data(content)))
                let result = try await VaultProcess.vaultAsync(
                    ["agent", "--token-file", path + "=ann@https://auth.example.com"], environment: place.environment, timeout: 30)
                #expect(result.status == 2, "\(path): \(result.err)")
                let reason = "the file at its name holds something other than a token, and vault replaces only its own token files"
                #expect(result.err == "vault: refusing the token file \(path): \(reason); choose a file of its own\n", "\(result.err)")
                #expect(FileManager.default.contents(atPath: path).map(Array.init) == content)
            }
            #expect(access(place.socket, F_OK) != 0, "nothing listens")
        }
    }

    @Test("one token file for two bindings, or a directory that does not exist: one line, exit 2 or 4, nothing made")
    func tokenFileGivenTwiceOrNowhere() async throws {
        try await Self.withPlace { place in
            mkdir(place.socketDirectory, 0o700)
            symlink(place.directory, place.directory + "/alias")
            let first = place.directory + "/api.token"
            let twice = try await VaultProcess.vaultAsync(
                [
                    "agent", "--token-file", first + "=ann@https://auth.example.com", "--token-file",
                    place.directory + "/alias/api.token=bob@https://auth.example.com",
                ], environment: place.environment, timeout: 30)
            #expect(twice.status == 2, "\(twice.err)")
            #expect(
                twice.err == "vault: the token file \(place.directory)/alias/api.token is given twice (also as \(first)); give each file once\n",
                "\(twice.err)")
            // Whoever makes a missing directory first owns it (attack review 47).
            let nowhere = try await VaultProcess.vaultAsync(
                ["agent", "--token-file", place.directory + "/missing/api.token=ann@https://auth.example.com"], environment: place.environment,
                timeout: 30)
            #expect(nowhere.status == 4, "\(nowhere.err)")
            #expect(
                nowhere.err == "vault: refusing the token file \(place.directory)/missing/api.token: the directory \(place.directory)/missing "
                    + "does not exist; choose a directory only you can change\n", "\(nowhere.err)")
            #expect(access(place.directory + "/missing", F_OK) != 0 && access(first, F_OK) != 0)
            // Attack review 48: a name whose temporary file (".NAME.vault-" and 16 digits) cannot exist.
            let long = place.directory + "/" + String(repeating: "t", count: 232)
            let tooLong = try await VaultProcess.vaultAsync(
                ["agent", "--token-file", long + "=ann@https://auth.example.com"], environment: place.environment, timeout: 30)
            #expect(
                tooLong.status == 2 && tooLong.err == "vault: refusing the token file \(long): its name is longer than 231 bytes\n", "\(tooLong.err)")
            #expect(access(place.socket, F_OK) != 0, "nothing listens")
        }
    }

    @Test(
        "bad flags: exit 2 with one line",
        arguments: [
            ["--account", "https://auth.example.com"],
            ["--account", "https://a.example.com", "ann", "--account", "https://b.example.com"],
            ["--account", "ftp://auth.example.com", "ann"],
            ["--keep-alive", "5x"], ["--keep-alive", "0"], ["--keep-alive", "-5m"], ["--keep-alive", "367d"], ["--keep-alive", ""],
            ["--token-file", "relative.token=ann@https://auth.example.com"], ["--token-file", "/t/token"],
            ["--token-file", "/t/token=ann"], ["--token-file", "/t/token=@https://auth.example.com"], ["--token-file", "/t/token=ann@"],
            ["--frobnicate"], ["--secret-service", "--backend", "secret-service"], ["--secret-service", "--backend", "etcd"],
            // Attack review 48b: an account name goes into log lines (a newline forged one); "." is a directory.
            ["--account", "https://auth.example.com", "ann\n2026-11-29 notice forged"],
            ["--token-file", "/t/n.token=ann\u{1B}[2J@https://auth.example.com"], ["--token-file", "/t/.=ann@https://auth.example.com"],
            ["--token-file", "/t/..=ann@https://auth.example.com"],
        ])
    func badFlags(_ arguments: [String]) async throws {
        try await Self.withPlace { place in
            let result = try await VaultProcess.vaultAsync(["agent"] + arguments, environment: place.environment, timeout: 30)
            #expect(result.status == 2, "\(arguments): \(result.err)")
            #expect(result.err.split(separator: "\n").count == 1 && result.err.hasPrefix("vault: "), "\(arguments): \(result.err)")
            #expect(access(place.socket, F_OK) != 0, "nothing listens")
        }
    }

    @Test("good flags are taken: --account twice, --keep-alive forms, --token-file with @ and = in the names")
    func goodFlags() async throws {
        try await Self.withPlace { place in
            let agent = try await Self.startAgent(
                place,
                [
                    "--account", "https://a.example.com", "ann", "--account", "https://b.example.com", "bob", "--keep-alive", "90m",
                    "--token-file", place.directory + "/a=b.token=ann@corp@https://a.example.com",
                ])
            defer { agent.kill() }
            #expect(try await Self.check(place.environment).status == 0)
            agent.terminate()
            #expect(try await agent.finishAsync(timeout: 30).status == 0, "\(agent.output)")
        }
    }

    @Test("socket activation: systemd-socket-activate's socket is served and left in place")
    func socketActivation() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-socket-activate"))
        try await Self.withPlace { place in
            mkdir(place.socketDirectory, 0o700)
            let activator = try ChildProcess(
                "/usr/bin/systemd-socket-activate", ["-l", place.socket, VaultProcess.vaultPath, "agent", "-v"], environment: place.environment,
                stderr: .intoStdout)
            defer { activator.kill() }
            for _ in 0..<500 where access(place.socket, F_OK) != 0 { try await Task.sleep(for: .milliseconds(10)) }
            // The first connection starts the agent, which answers it; `--check` waits 5 s
            // for that, and a debug agent's start on a loaded machine once took longer
            // (bounded retries: each later check finds the agent started).
            var answered = try await Self.check(place.environment)
            for _ in 0..<5 where answered.status != 0 { answered = try await Self.check(place.environment) }
            #expect(
                answered.status == 0 && answered.out.hasPrefix("vault-agent ") && answered.out.hasSuffix("\n"), "\(answered.err) \(activator.output)")
            #expect(
                try await activator.waitForOutput(timeout: 30) { $0.contains("serving at the socket systemd passed") } != nil, "\(activator.output)")
            activator.terminate()
            let result = try await activator.finishAsync(timeout: 30)
            #expect(result.status == 0, "\(activator.output)")
            #expect(access(place.socket, F_OK) == 0, "an activated socket is systemd's: left in place")
        }
    }

    @Test("sd_notify: a newline in the socket's path is escaped in STATUS=, never an assignment of its own")
    func systemdNotifyEscapesThePath() async throws {
        try await Self.withPlace { place in
            let listener = try NotifyListener(path: place.directory + "/notify")
            defer { listener.close() }
            mkdir(place.directory + "/a\nSTOPPING=1\n", 0o700)
            var environment = place.environment
            environment["NOTIFY_SOCKET"] = listener.path
            environment["VAULT_AGENT_SOCKET"] = place.directory + "/a\nSTOPPING=1\n/agent.sock"
            let agent = try await Self.startAgent(place, environment: environment)
            defer { agent.kill() }
            let ready = await listener.wait(timeout: 30) { $0.contains { $0.contains("READY=1") } }
            let message = ready.first { $0.contains("READY=1") } ?? ""
            #expect(message == "READY=1\nSTATUS=serving at \(place.directory)/a\\nSTOPPING=1\\n/agent.sock", "\(ready)")
            #expect(!ready.contains { $0.split(separator: "\n").contains("STOPPING=1") }, "\(ready)")
            #expect(agent.output.contains("serving at \(place.directory)/a\\nSTOPPING=1\\n/agent.sock"), "\(agent.output)")
        }
    }

    @Test("sd_notify: READY=1 and STATUS= once listening, WATCHDOG=1 at half WATCHDOG_USEC, STOPPING=1 on SIGTERM")
    func systemdNotify() async throws {
        try await Self.withPlace { place in
            let listener = try NotifyListener(path: place.directory + "/notify")
            defer { listener.close() }
            var environment = place.environment
            environment["NOTIFY_SOCKET"] = listener.path
            // WATCHDOG=1 every second. (A full queue of the manager's is the next test's:
            // there WATCHDOG=1 and STATUS= are dropped, READY=1 and STOPPING=1 wait.)
            environment["WATCHDOG_USEC"] = "2000000"
            let agent = try await Self.startAgent(place, environment: environment)
            defer { agent.kill() }
            let ready = await listener.wait(timeout: 30) { messages in
                messages.contains { $0.contains("READY=1") } && messages.filter { $0 == "WATCHDOG=1" }.count >= 3
            }
            #expect(ready.contains { $0.hasPrefix("READY=1\nSTATUS=serving at \(place.socket)") }, "\(ready)")
            #expect(ready.filter { $0 == "WATCHDOG=1" }.count >= 3, "\(ready)")
            // Clients that never finish a request (each closed at the 5 s deadline): the
            // STATUS= line comes to count them.
            var clients: [Int32] = []
            defer { for client in clients { close(client) } }
            var updated: [String] = []
            for _ in 0..<40 {
                if let client = NotifyListener.connect(place.socket) { clients.append(client) }
                updated = await listener.wait(timeout: 0.5) { $0.contains { $0.hasPrefix("STATUS=") && $0.contains("open") } }
                if updated.contains(where: { $0.hasPrefix("STATUS=") && $0.contains("open") }) { break }
            }
            #expect(updated.contains { $0.hasPrefix("STATUS=serving at \(place.socket); ") && $0.hasSuffix(" open") }, "\(updated)")
            // The listener reads on while the agent stops (see WATCHDOG_USEC above).
            async let stopping = listener.wait(timeout: 30) { $0.contains { $0.hasPrefix("STOPPING=1") } }
            agent.terminate()
            let finished = try await agent.finishAsync(timeout: 30)
            let all = await stopping
            #expect(finished.status == 0)
            #expect(all.contains { $0.hasPrefix("STOPPING=1") }, "\(all)")
        }
    }

    @Test("sd_notify to a manager that reads slowly: with its queue full, READY=1 and STOPPING=1 wait for room and arrive")
    func systemdNotifySlowReader() async throws {
        try await Self.withPlace { place in
            let listener = try NotifyListener(path: place.directory + "/notify")
            defer { listener.close() }
            var environment = place.environment
            environment["NOTIFY_SOCKET"] = listener.path
            environment["WATCHDOG_USEC"] = "100000"  // WATCHDOG=1 every 50 ms
            // The queue (10 datagrams) full before the agent starts, as a manager that has
            // not read for a while leaves it; then one datagram read every 300 ms.
            var filled = 0
            while listener.sendToSelf("EARLIER=\(filled)") { filled += 1 }
            try #require(filled > 0 && filled < 1000, "the queue filled after \(filled) datagrams")
            let reading = Task { await listener.readSlowly(every: .milliseconds(300), bound: 120) { $0.contains { $0.hasPrefix("STOPPING=1") } } }
            let agent = try await Self.startAgent(place, environment: environment)
            defer { agent.kill() }
            // READY=1 read: from now on the agent pings into each slot the reader frees. (Not
            // waited for, the stop could come while EARLIER= still filled the queue, and then
            // STOPPING=1, which waits for room, took the freed slot before any ping: a
            // run of Scripts/test failed so, once the agent started faster.)
            let readyBound = ContinuousClock.now + .seconds(Sanitizer.scaled(60))
            while !listener.received().contains(where: { $0.hasPrefix("READY=1") }), ContinuousClock.now < readyBound {
                try await Task.sleep(for: .milliseconds(100))
            }
            // Full again, with the agent's pings this time, before the stop.
            var probes = 0
            while listener.sendToSelf("PROBE=\(probes)"), probes < 600 {
                probes += 1
                try await Task.sleep(for: .milliseconds(100))
            }
            agent.terminate()
            let finished = try await agent.finishAsync(timeout: 60)
            let all = await reading.value
            #expect(finished.status == 0, "\(agent.output)")
            #expect(all.prefix(filled) == ArraySlice((0..<filled).map { "EARLIER=\($0)" }), "\(all)")
            #expect(all.filter { $0.hasPrefix("READY=1\nSTATUS=serving at \(place.socket)") }.count == 1, "READY=1 was not dropped: \(all)")
            #expect(all.filter { $0.hasPrefix("STOPPING=1\nSTATUS=stopping") }.count == 1, "STOPPING=1 was not dropped: \(all)")
            #expect(all.contains("WATCHDOG=1"), "\(all)")
        }
    }

    @Test(
        "a NOTIFY_SOCKET vault cannot use (relative, too long, an abstract name too long, control bytes): the agent says so once and serves",
        arguments: ["relative/notify", "/" + String(repeating: "n", count: 200), "@" + String(repeating: "a", count: 108), "x\u{1b}[31mred"])
    func systemdNotifyUnusableSocket(_ socket: String) async throws {
        try await Self.withPlace { place in
            var environment = place.environment
            environment["NOTIFY_SOCKET"] = socket
            let agent = try await Self.startAgent(place, environment: environment)
            defer { agent.kill() }
            let check = try await Self.check(place.environment)
            #expect(check.status == 0, "\(check.err)")
            agent.terminate()
            let finished = try await agent.finishAsync(timeout: 60)
            #expect(finished.status == 0 && !finished.signalled, "\(agent.output)")
            let notices = agent.output.split(separator: "\n").filter { $0.contains("NOTIFY_SOCKET") }
            #expect(notices.count == 1 && notices[0].hasPrefix("vault: NOTIFY_SOCKET '") && notices[0].hasSuffix("; no sd_notify"), "\(agent.output)")
            #expect(!agent.output.contains("\u{1b}"), "a control byte reached the terminal: \(agent.output)")
        }
    }

    @Test("sd_notify to an abstract socket (@name); no watchdog for another WATCHDOG_PID")
    func systemdNotifyAbstract() async throws {
        try await Self.withPlace { place in
            let name = "@vault-agent-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            let listener = try NotifyListener(path: name)
            defer { listener.close() }
            var environment = place.environment
            environment["NOTIFY_SOCKET"] = name
            environment["WATCHDOG_USEC"] = "200000"
            environment["WATCHDOG_PID"] = "1"
            let agent = try await Self.startAgent(place, environment: environment)
            defer { agent.kill() }
            let ready = await listener.wait(timeout: 30) { $0.contains { $0.contains("READY=1") } }
            #expect(ready.contains { $0.contains("READY=1") }, "\(ready)")
            try await Task.sleep(for: .milliseconds(600))
            let later = await listener.wait(timeout: 0.2) { _ in false }
            #expect(!later.contains("WATCHDOG=1"), "the watchdog is another process's: \(later)")
            agent.terminate()
            #expect(try await agent.finishAsync(timeout: 30).status == 0)
        }
    }

    @Test("another uid: the client refuses the agent, the agent refuses the client, logged once")
    func otherUID() async throws {
        try #require(getuid() == 0, "needs root to run a client as uid 65534")
        try await Self.withPlace { place in
            let agent = try await Self.startAgent(place)
            defer { agent.kill() }
            // The test's own opening: the agent's directory is 0700 and its socket 0600.
            chmod(place.directory, 0o711)
            chmod(place.socketDirectory, 0o711)
            chmod(place.socket, 0o666)
            var environment = place.environment
            environment["HOME"] = "/nonexistent"
            for _ in 0..<2 {
                let check = try await ChildProcess.runAsync(
                    "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", VaultProcess.vaultPath, "agent", "--check"],
                    environment: environment, timeout: 30)
                #expect(check.status == 4 && check.err.contains("runs as uid 0, not as this user"), "\(check.err)")
            }
            #expect(try await Self.check(place.environment).status == 0)
            agent.terminate()
            _ = try await agent.finishAsync(timeout: 30)
            let refusals = agent.output.split(separator: "\n").filter { $0.contains("refused a connection from uid 65534") }
            #expect(refusals.count == 1, "\(agent.output)")
        }
    }

    /// Issue 37, finding 9: another uid can make `/tmp/vault-agent-UID` first; the agent
    /// refuses it (as before) and now says how to get a place of one's own.
    @Test("a fallback socket directory another user made first: exit 4, one line that says to set XDG_RUNTIME_DIR")
    func squattedFallback() async throws {
        try #require(getuid() == 0, "needs root to play the user (uid 65534) and the squatter (root)")
        let squatted = "/tmp/vault-agent-65534"
        let made = mkdir(squatted, 0o755) == 0
        defer { if made { rmdir(squatted) } }
        var info = stat()
        guard stat(squatted, &info) == 0, info.st_uid != 65534 else {
            print("\(squatted) belongs to uid 65534 here: nothing to squat")
            return
        }
        let result = try await ChildProcess.runAsync(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", VaultProcess.vaultPath, "agent"],
            environment: ["PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "LANG": "C.UTF-8"], timeout: 30)
        #expect(result.status == 4, "\(result.err)")
        #expect(
            result.err == "vault: the socket directory \(squatted) is not safe: it is owned by uid \(info.st_uid); "
                + "set XDG_RUNTIME_DIR (or VAULT_AGENT_SOCKET) to a directory only you can change\n", "\(result.err)")
    }

    @Test("the systemd user units install with the prefix and pass systemd-analyze verify")
    func systemdUnits() async throws {
        try await withTemporaryDirectory("vault-units") { directory in
            let root = PackageRoot.path
            let installed = try await ChildProcess.runAsync(
                root + "/Scripts/install-units", [directory + "/prefix", "/opt/vault"], environment: ["PATH": "/usr/bin:/bin"])
            #expect(installed.status == 0, "\(installed.err)")
            let units = directory + "/prefix/lib/systemd/user"
            let service = try String(contentsOfFile: units + "/vault-agent.service", encoding: .utf8)
            #expect(service.contains("\nExecStart=/opt/vault/bin/vault agent\n") && service.contains("\nType=notify\n"))
            let socket = try String(contentsOfFile: units + "/vault-agent.socket", encoding: .utf8)
            #expect(socket.contains("\nListenStream=%t/vault/agent.sock\n") && socket.contains("\nSocketMode=0600\n"))
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") else { return }
            // verify wants the ExecStart binary to exist and a runtime directory.
            let bin = directory + "/prefix/bin"
            try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: "/bin/true", toPath: bin + "/vault")
            let local = try await ChildProcess.runAsync(
                root + "/Scripts/install-units", [directory + "/prefix"], environment: ["PATH": "/usr/bin:/bin"])
            #expect(local.status == 0, "\(local.err)")
            try FileManager.default.createDirectory(atPath: directory + "/run", withIntermediateDirectories: true)
            let verified = try await ChildProcess.runAsync(
                "/usr/bin/systemd-analyze", ["--user", "--man=no", "verify", units + "/vault-agent.service", units + "/vault-agent.socket"],
                environment: ["PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": directory + "/run"])
            #expect(verified.status == 0, "\(verified.out) \(verified.err)")
        }
    }
}

/// A `NOTIFY_SOCKET` of the test's own: a Unix datagram socket at a path or, with a
/// leading `@`, in the abstract namespace, collecting what the agent sends.
final class NotifyListener: @unchecked Sendable {
    let path: String
    private let descriptor: Int32
    /// What was read so far: written by the reading thread, read by ``received()`` too.
    private var messages: [String] {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
    private var stored: [String] = []
    private let lock = NSLock()

    /// The datagrams read so far (while a reader runs, as far as it got).
    func received() -> [String] { messages }

    init(path: String) throws {
        self.path = path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == 0 ? 0 : 1))
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
        guard descriptor >= 0, bound == 0 else { throw POSIXError(.EADDRINUSE) }
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Reads datagrams until `condition` holds of all received so far, or `timeout` seconds pass.
    /// The blocking reads run on a thread of their own, never on the concurrency pool.
    func wait(timeout: Double, until condition: @escaping @Sendable ([String]) -> Bool) async -> [String] {
        await onOwnThread { [self] in
            let deadline = Date().addingTimeInterval(Sanitizer.scaled(timeout))
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !condition(messages) && Date() < deadline {
                let count = recv(descriptor, &buffer, buffer.count, 0)
                if count > 0 { messages.append(String(decoding: buffer[0..<count], as: UTF8.self)) }
            }
            return messages
        }
    }

    /// A manager that reads slowly: one datagram per `interval` (when one is there), until
    /// `condition` holds of all received so far, or `bound` seconds pass.
    func readSlowly(every interval: Duration, bound: Double, until condition: @escaping @Sendable ([String]) -> Bool) async -> [String] {
        let pause = useconds_t(interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000)
        return await onOwnThread { [self] in
            let deadline = Date().addingTimeInterval(Sanitizer.scaled(bound))
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !condition(messages) && Date() < deadline {
                usleep(pause)
                let count = recv(descriptor, &buffer, buffer.count, 0)
                if count > 0 { messages.append(String(decoding: buffer[0..<count], as: UTF8.self)) }
            }
            return messages
        }
    }

    func close() { Foundation.close(descriptor) }

    /// Sends `text` to this socket from another, never waiting: false when its queue is full.
    func sendToSelf(_ text: String) -> Bool {
        let sender = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard sender >= 0 else { return false }
        defer { Foundation.close(sender) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.utf8.count + 1)
        let bytes = Array(text.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { target in
                bytes.withUnsafeBytes { sendto(sender, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT), target, length) }
            }
        }
        return sent == bytes.count
    }

    /// A client connected to the Unix stream socket at `path` that sends nothing, or nil.
    static func connect(_ path: String) -> Int32? {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Foundation.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            Foundation.close(descriptor)
            return nil
        }
        return descriptor
    }
}
