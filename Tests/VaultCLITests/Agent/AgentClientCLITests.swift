// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultAgentProtocol
import VaultStore
import VaultTestSupport

/// The clients of `vault agent` (`token`, `load`, `request`, `exec --token`, `lock`,
/// `status`) through the built binaries, against a fake agent on a real socket: served by
/// the agent, or the same output and exit code as with `VAULT_AGENT=off` when it declines,
/// garbles, stalls, is absent or runs as another user.
@Suite("vault agent's clients", .disabled(if: KernelKeyring().unavailability != nil, "the kernel refuses key calls here"), .offThePool)
struct AgentClientCLITests {
    static let fakeToken = "fake-agent-token-7d1e"
    static let fakeSecret = "fake-agent-secret-52aa"

    /// A logged-in account on the reference server, its vault file's key kept in the kernel
    /// keyring, so commands run without any passphrase source (as the agent's clients do).
    struct Setup {
        let fixture: AuthFixture
        var socket: String { "\(fixture.dir)/agent.sock" }
        var file: String { "\(fixture.dir)/vault/vault.db" }

        /// No passphrase source; the key cache on; the agent at ``socket``.
        var env: [String: String] {
            var env = fixture.env
            env["VAULT_PASSPHRASE"] = nil
            env["VAULT_KEY_CACHE_TTL"] = "600"
            env["VAULT_AGENT_SOCKET"] = socket
            return env
        }
        var off: [String: String] { env.merging(["VAULT_AGENT": "off"]) { $1 } }

        func run(_ arguments: [String], env: [String: String], timeout: Double = 60) async throws -> ProcessResult {
            try await VaultProcess.vaultAsync(arguments, environment: env, timeout: timeout)
        }

        func agent(_ behaviour: FakeAgent.Behaviour) throws -> FakeAgent { try FakeAgent(path: socket, behaviour: behaviour) }
    }

    /// Runs `body` with a ``Setup``; drops the kept key afterwards.
    func withSetup(_ body: (Setup) async throws -> Void) async throws {
        // Tokens that outlive the test: on a loaded machine it takes more than a minute,
        // and a refresh between two compared runs changes what they print.
        try await withAuthFixture(accessTTL: 1800, refreshTTL: 3600) { fixture in
            let login = try await fixture.login()
            try #require(login.status == 0, "\(login.err)")
            #expect(try await fixture.vault(["save", "--server", "db.example.com", "--account", "alice"], stdin: "db-secret-19").status == 0)
            let setup = Setup(fixture: fixture)
            var unlockEnv = fixture.env
            unlockEnv["VAULT_KEY_CACHE_TTL"] = "600"
            let unlocked = try await fixture.vault(["unlock", "--ttl", "300"], env: unlockEnv)
            try #require(unlocked.status == 0, "\(unlocked.err)")
            do {
                try await body(setup)
            } catch {
                _ = try? await setup.run(["lock"], env: setup.off)
                throw error
            }
            _ = try await setup.run(["lock"], env: setup.off)
        }
    }

    /// The command lines compared, each with `-v`.
    func commands(_ setup: Setup) -> [(name: String, arguments: [String])] {
        let url = setup.fixture.url
        return [
            ("token", ["token", url, "alice", "-v"]),
            ("token via vault-auth", ["token", url, "alice", "--timeout", "20", "-v"]),
            ("load", ["load", "db.example.com", "alice", "-v"]),
            ("request", ["request", url, "alice", "/api/get_devs", "-v"]),
            ("exec --token", ["exec", "-v", "--token", "T=alice@\(url)", "--", "/bin/sh", "-c", "printf 'token %s\\n' \"$T\""]),
            ("token of nobody", ["token", url, "nobody", "-v"]),
        ]
    }

    /// `stderr` without the lines about the agent.
    static func withoutAgentLines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("vault: agent: ") }.joined(separator: "\n")
    }

    /// The same stdout, stderr (but for the agent's `-v` lines) and exit status.
    static func expectSame(_ agent: ProcessResult, _ off: ProcessResult, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(agent.status == off.status, "\(what): exit \(agent.status) vs \(off.status): \(agent.err)", sourceLocation: sourceLocation)
        #expect(agent.out == off.out, "\(what): stdout differs", sourceLocation: sourceLocation)
        #expect(
            withoutAgentLines(agent.err) == withoutAgentLines(off.err), "\(what): stderr differs:\n\(agent.err)\n---\n\(off.err)",
            sourceLocation: sourceLocation)
        #expect(!agent.out.contains(fakeToken) && !agent.err.contains(fakeToken), sourceLocation: sourceLocation)
    }

    static let fakeTokenAnswer: @Sendable (AgentRequest) -> AgentAnswer = { request in
        switch request {
        case .token: .done([Array(fakeToken.utf8), Array("4102444800".utf8), Array("held".utf8)])
        case .load: .done([Array(fakeSecret.utf8), Array("a label".utf8)])
        case .lock: .done([])
        default: .declined(reason: "not this")
        }
    }

    @Test("served by the agent: exactly the token or secret, exit 0, no store opened, -v says so, no secret in it")
    func served() async throws {
        try await withSetup { setup in
            let agent = try setup.agent(.answer(Self.fakeTokenAnswer))
            defer { agent.stop() }
            // No key either: whatever is printed came from the agent.
            var locked = setup.env
            locked["VAULT_KEY_CACHE_TTL"] = "0"
            let token = try await setup.run(["token", setup.fixture.url, "alice"], env: locked)
            #expect(token.status == 0 && token.out == Self.fakeToken + "\n" && token.err.isEmpty, "\(token.err)")
            #expect(agent.connections == 1)
            let request = try #require(agent.requests.first)
            guard case .token(let store, let server, let account, let rejected) = request else {
                Issue.record("asked \(request)")
                return
            }
            #expect(store.contains("backend=file") && store.contains("file=\(setup.file)"), "\(store)")
            #expect(server == setup.fixture.url && account == "alice" && rejected == nil)

            let verbose = try await setup.run(["token", "--server", setup.fixture.url + "/", "--account", "alice", "-v"], env: locked)
            #expect(verbose.status == 0 && verbose.out == Self.fakeToken + "\n")
            #expect(verbose.err == "vault: agent: served the token\n", "\(verbose.err)")
            #expect(agent.connections == 2, "asked once")

            // vault-auth asks when vault did not (an option vault does not read itself).
            let handedOver = try await setup.run(["token", setup.fixture.url, "alice", "--timeout", "20", "-v"], env: locked)
            #expect(handedOver.status == 0 && handedOver.out == Self.fakeToken + "\n", "\(handedOver.err)")
            #expect(handedOver.err == "vault: agent: served the token\n", "\(handedOver.err)")
            #expect(agent.connections == 3)

            let load = try await setup.run(["load", "db.example.com", "alice", "-v"], env: locked)
            #expect(load.status == 0 && load.out == Self.fakeSecret, "\(load.err)")
            #expect(load.err == "vault: agent: served the item\n", "\(load.err)")
            #expect(agent.requests.last == .load(store: store, server: "db.example.com", account: "alice"))

            let exec = try await setup.run(
                ["exec", "-v", "--token", "T=alice@\(setup.fixture.url)", "--", "/bin/sh", "-c", "printf '%s' \"$T\""], env: locked)
            #expect(exec.status == 0 && exec.out == Self.fakeToken, "\(exec.err)")
            #expect(!exec.err.contains(Self.fakeToken))
            #expect(agent.connections == 5)

            // A secret from the store, a token from the agent, in one exec.
            let mixed = try await setup.run(
                [
                    "exec", "--env", "S=alice@db.example.com", "--token", "T=alice@\(setup.fixture.url)", "--", "/bin/sh", "-c",
                    "printf '%s %s' \"$S\" \"$T\"",
                ],
                env: setup.env)
            #expect(mixed.status == 0 && mixed.out == "db-secret-19 \(Self.fakeToken)", "\(mixed.err)")
            #expect(agent.connections == 6)

            // The only account logged in: vault-auth reads the store for its names, then asks.
            let unnamed = try await setup.run(["token", "-v"], env: setup.env)
            #expect(unnamed.status == 0 && unnamed.out == Self.fakeToken + "\n", "\(unnamed.err)")
            #expect(unnamed.err.hasSuffix("vault: agent: served the token\n"), "\(unnamed.err)")
            #expect(agent.requests.last == .token(store: store, server: setup.fixture.url, account: "alice", rejected: nil))
            #expect(agent.connections == 7)
        }
    }

    @Test("declined, garbled, hung up or absent: the same output and exit code as with VAULT_AGENT=off")
    func fallback() async throws {
        try await withSetup { setup in
            let behaviours: [(String, FakeAgent.Behaviour?)] = [
                ("declined", .answer({ _ in .declined(reason: "the vault is locked") })), ("garbage", .garbage), ("hang-up", .hangUp),
                ("absent", nil),
            ]
            for (name, behaviour) in behaviours {
                let agent = try behaviour.map { try setup.agent($0) }
                for (command, arguments) in commands(setup) {
                    let before = agent?.connections ?? 0
                    let served = try await setup.run(arguments, env: setup.env)
                    let off = try await setup.run(arguments, env: setup.off)
                    Self.expectSame(served, off, "\(name), \(command)")
                    if let agent {
                        #expect(agent.connections == before + 1, "\(name), \(command): asked once")
                        #expect(served.err.contains("; doing the work here"), "\(name), \(command): \(served.err)")
                    } else {
                        #expect(!served.err.contains("vault: agent:"), "no socket, no attempt: \(served.err)")
                    }
                }
                let said: [String: String] = [
                    "declined": "agent: the vault is locked; doing the work here",
                    "garbage": "agent: the agent's answer was malformed; doing the work here",
                    "hang-up": "agent: the agent closed the connection without an answer; doing the work here",
                ]
                if let line = said[name] {
                    let verbose = try await setup.run(commands(setup)[0].arguments, env: setup.env)
                    #expect(verbose.err.contains(line), "\(name): \(verbose.err)")
                }
                agent?.stop()
            }
        }
    }

    @Test("a stalled agent: the client gives up after its deadline and does the work itself")
    func stalled() async throws {
        try await withSetup { setup in
            let agent = try setup.agent(.stall)
            defer { agent.stop() }
            let arguments = ["token", setup.fixture.url, "alice", "-v"]
            let served = try await setup.run(arguments, env: setup.env, timeout: 90)
            let off = try await setup.run(arguments, env: setup.off)
            Self.expectSame(served, off, "stalled")
            #expect(served.err.contains("agent: the agent did not answer in time; doing the work here"), "\(served.err)")
            #expect(agent.connections == 1, "vault-auth does not ask again")
        }
    }

    @Test("a given passphrase or --no-key-cache never asks the agent")
    func givenPassphraseNeverAsks() async throws {
        try await withSetup { setup in
            let agent = try setup.agent(.answer(Self.fakeTokenAnswer))
            defer { agent.stop() }
            let passphraseFile = "\(setup.fixture.dir)/passphrase"
            try Data("fixture passphrase".utf8).write(to: URL(fileURLWithPath: passphraseFile))
            let url = setup.fixture.url
            var withPassphrase = setup.env
            withPassphrase["VAULT_PASSPHRASE"] = "fixture passphrase"
            var withPassphraseFile = setup.env
            withPassphraseFile["VAULT_PASSPHRASE_FILE"] = passphraseFile
            let runs: [([String], [String: String])] = [
                (["token", url, "alice"], withPassphrase), (["token", url, "alice", "--passphrase-file", passphraseFile], setup.env),
                (["token", url, "alice"], withPassphraseFile), (["token", url, "alice", "--no-key-cache"], setup.env),
                (["load", "db.example.com", "alice"], withPassphrase), (["load", "db.example.com", "alice", "--no-key-cache"], setup.env),
                (["request", url, "alice", "/api/get_devs"], withPassphrase),
                (["exec", "--token", "T=alice@\(url)", "--", "/bin/true"], withPassphrase),
                (["exec", "--no-key-cache", "--token", "T=alice@\(url)", "--", "/bin/true"], setup.env),
            ]
            for (arguments, env) in runs {
                let result = try await setup.run(arguments, env: env)
                #expect(!result.out.contains(Self.fakeToken) && !result.out.contains(Self.fakeSecret), "\(arguments)")
            }
            #expect(agent.connections == 0)
            let given = try await setup.run(["token", url, "alice"], env: withPassphrase)
            #expect(given.status == 0 && given.out.hasPrefix("eyJ"), "\(given.err)")
        }
    }

    @Test("a socket served by another uid is never trusted")
    func otherUser() async throws {
        try await withSetup { setup in
            let directory = "/tmp/vault-agent-other-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o777])
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let socket = "\(directory)/agent.sock"
            let answer = AgentFrame.framed(AgentAnswer.done([Array(Self.fakeToken.utf8), Array("4102444800".utf8), Array("held".utf8)]).encoded())
            let hex = Hex.encode(answer)
            let script = """
                use Socket; $SIG{PIPE} = "IGNORE"; my ($path, $hex) = @ARGV; my $answer = pack("H*", $hex);
                socket(my $s, PF_UNIX, SOCK_STREAM, 0) or die "socket: $!"; bind($s, pack_sockaddr_un($path)) or die "bind: $!";
                listen($s, 16) or die "listen: $!"; $| = 1; print "listening\n";
                while (accept(my $c, $s)) { my $b; sysread($c, $b, 65536); syswrite($c, $answer); close($c); }
                """
            let perl = try ChildProcess.start(
                "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/perl", "-e", script, socket, hex])
            defer { perl.kill() }
            let listening = try await perl.waitForOutput(timeout: 20) { $0.contains("listening") }
            try #require(listening != nil, "the other user's fake agent did not start")
            var env = setup.env
            env["VAULT_AGENT_SOCKET"] = socket
            for arguments in [["token", setup.fixture.url, "alice", "-v"], ["load", "db.example.com", "alice", "-v"]] {
                let result = try await setup.run(arguments, env: env)
                let off = try await setup.run(arguments, env: setup.off)
                Self.expectSame(result, off, "another uid, \(arguments[0])")
                #expect(result.err.contains("runs as uid 65534, not as this user; not used"), "\(result.err)")
            }
        }
    }

    @Test("vault request: the agent's token, replaced by the agent after a 401")
    func requestThroughTheAgent() async throws {
        try await withSetup { setup in
            let real = try await setup.run(["token", setup.fixture.url, "alice"], env: setup.off)
            try #require(real.status == 0, "\(real.err)")
            let token = String(real.out.dropLast())
            let agent = try setup.agent(
                .answer({ request in
                    guard case .token(_, _, _, let rejected) = request else { return .declined(reason: "no") }
                    let served = rejected == nil ? "bogus-token-1" : token
                    return .done([Array(served.utf8), Array("4102444800".utf8), Array("held".utf8)])
                }))
            defer { agent.stop() }
            let before = setup.fixture.server.stats.authorized
            let result = try await setup.run(["request", setup.fixture.url, "alice", "/api/get_devs", "-v"], env: setup.env)
            #expect(result.status == 0 && result.out.contains("Ada Lovelace"), "\(result.err)")
            #expect(result.err.components(separatedBy: "agent: served the token").count == 3, "\(result.err)")
            #expect(!result.err.contains(token) && !result.err.contains("bogus-token-1"))
            #expect(setup.fixture.server.stats.authorized == before + 1)
            let requests = agent.requests
            #expect(requests.count == 2)
            if requests.count == 2, case .token(_, _, _, let rejected) = requests[1] { #expect(rejected == Array("bogus-token-1".utf8)) }
        }
    }

    @Test("vault lock tells the agent, even with VAULT_AGENT=off; nothing when none runs")
    func lock() async throws {
        try await withSetup { setup in
            let agent = try setup.agent(.answer(Self.fakeTokenAnswer))
            let locked = try await setup.run(["lock"], env: setup.env)
            #expect(locked.status == 0 && locked.err == "vault: the agent dropped its keys too\n", "\(locked.err)")
            #expect(agent.requests == [.lock])
            // VAULT_AGENT=off keeps commands from asking the agent; a lock still reaches it.
            let off = try await setup.run(["lock"], env: setup.off)
            #expect(off.status == 0 && off.err == "vault: the agent dropped its keys too\n" && agent.connections == 2, "\(off.err)")
            agent.stop()
            let none = try await setup.run(["lock"], env: setup.env)
            #expect(none.status == 0 && none.err.isEmpty, "\(none.err)")
        }
    }

    @Test("vault status adds what the agent says of each account")
    func status() async throws {
        try await withSetup { setup in
            let url = setup.fixture.url
            let json = """
                {"agent":"vault-agent 1","locked":false,"accounts":[{"server":"\(url)","account":"alice","kept":true,\
                "next_refresh_at":"2030-01-01T00:00:00Z","last_refresh_at":"2026-01-01T00:00:00Z","last_error":"the provider said no",\
                "state":"needs login"}]}
                """
            let agent = try setup.agent(
                .answer({ request in
                    guard case .status = request else { return .declined(reason: "no") }
                    return .done([Array(json.utf8)])
                }))
            defer { agent.stop() }
            let text = try await setup.run(["status"], env: setup.fixture.env.merging(["VAULT_AGENT_SOCKET": setup.socket]) { $1 })
            #expect(text.status == 0, "\(text.err)")
            #expect(text.out.contains("agent: vault-agent 1, running"), "\(text.out)")
            #expect(text.out.contains("  next refresh:   2030-01-01T00:00:00Z"), "\(text.out)")
            // In words, not "kept (needs login)" (issue 37).
            #expect(text.out.contains("  agent:          stopped: it needs a person to log in again (vault login)\n"), "\(text.out)")
            #expect(text.out.contains("  agent error:    the provider said no"), "\(text.out)")
            let result = try await setup.run(["status", "--json"], env: setup.env)
            #expect(result.status == 0, "\(result.err)")
            let object = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
            #expect((object["agent"] as? [String: Any])?["version"] as? String == "vault-agent 1")
            let account = try #require((object["accounts"] as? [[String: Any]])?.first)
            #expect(account["usable"] as? Bool == true && account["server"] as? String == url)
            let kept = try #require(account["agent"] as? [String: Any])
            #expect(kept["next_refresh_at"] as? String == "2030-01-01T00:00:00Z")
            #expect(kept["last_refresh_at"] as? String == "2026-01-01T00:00:00Z")
            #expect(kept["last_error"] as? String == "the provider said no" && kept["kept"] as? Bool == true)
            let off = try await setup.run(["status", "--json"], env: setup.off)
            let plain = try #require(try JSONSerialization.jsonObject(with: off.stdout) as? [String: Any])
            #expect(plain["agent"] == nil && (plain["accounts"] as? [[String: Any]])?.first?["agent"] == nil)
        }
    }
}
