// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// The user's own commands reach every agent of the user at once (issue 37): after
/// `logout` no agent serves the account or keeps its token file, a new `login` is taken up,
/// `lock` reaches an agent at another socket place, and `passwd` does not leave an agent
/// holding a key that opens nothing.
@Suite("vault agent and the user's own commands", .needsKeyring, .offThePool)
struct AgentUserActionsTests {
    typealias Setup = AgentEndToEndTests.Setup

    /// Attack review of the agent (issue 37, finding 6): after `vault logout` the agent
    /// served the old access token, and its token file kept it, until the next refresh.
    @Test("after vault logout returns, the agent serves none of the account's tokens and its token file is gone; a login brings both back")
    func logoutReachesTheAgent() async throws {
        try await AgentEndToEndTests.with(accessTTL: 300) { setup in
            try await setup.login(setup.alice)
            let path = setup.directory + "/alice.token"
            let agent = try await setup.startKeepingAlice(tokenFile: path)
            defer { agent.kill() }
            let before = try String(contentsOfFile: path, encoding: .utf8)
            let served = try await setup.vault(["token", "-v", setup.url, setup.alice])
            #expect(served.status == 0 && served.err.contains("agent: served the token"), "\(served.err)")

            let logout = try await setup.vault(["logout", "-v", setup.url, setup.alice])
            #expect(logout.status == 0, "\(logout.err)")
            #expect(logout.err.contains("agent at \(setup.socket): told to read \(setup.alice) on \(setup.url) again"), "\(logout.err)")
            // No wait: when logout has returned, it is done.
            #expect(!FileManager.default.fileExists(atPath: path), "the token file outlived the logout: \(agent.output)")
            let after = try await setup.vault(["token", "-v", setup.url, setup.alice])
            #expect(after.status == 3 && after.out.isEmpty, "\(after.out)\(after.err)")
            #expect(!after.err.contains("agent: served"), "\(after.err)")

            try await setup.login(setup.alice)
            let back = await eventually(limit: .seconds(20), every: .milliseconds(100)) {
                ((try? String(contentsOfFile: path, encoding: .utf8)) ?? before) != before
            }
            #expect(back, "the new login's token never reached the file: \(agent.output)")
            let again = try await setup.vault(["token", "-v", setup.url, setup.alice])
            #expect(again.status == 0 && again.err.contains("agent: served the token"), "\(again.err)")
            #expect(again.out != before + "\n", "the old token is served again")
        }
    }

    /// Issue 37: without -v the agent said nothing at all, not even where it served.
    @Test("without -v the agent says where it serves, what it keeps and its token files, and that an account was logged out")
    func speaksWithoutVerbose() async throws {
        try await AgentEndToEndTests.with(accessTTL: 300) { setup in
            try await setup.login(setup.alice)
            let path = setup.directory + "/alice.token"
            let agent = try ChildProcess(
                VaultProcess.vaultPath, ["agent", "--account", setup.url, setup.alice, "--token-file", "\(path)=\(setup.alice)@\(setup.url)"],
                environment: setup.environment, stderr: .intoStdout)
            defer { agent.kill() }
            let started = try await agent.waitForOutput(timeout: 60) { $0.contains("serving at") }
            let line = try #require(started?.split(separator: "\n").first { $0.contains("serving at") }, "\(agent.output)")
            #expect(
                line.hasSuffix("serving at \(setup.socket); keeping \(setup.alice)@\(setup.url); token files: \(path)"), "\(line)")
            #expect(!agent.output.contains(" info "), "only notices and worse without -v: \(agent.output)")
            #expect(try await setup.vault(["logout", setup.url, setup.alice]).status == 0)
            #expect(
                try await agent.waitForOutput(timeout: 20) { $0.contains("\(setup.alice)@\(setup.url) was logged out") } != nil, "\(agent.output)")
        }
    }

    /// Attack review 48, finding 1: the agent compared the notice's store key as spelled, so
    /// an agent started as `auto` (falling back to the file) with the vault's absolute path
    /// did not hear a shell's `vault logout` that said `file` and reached the file through a link.
    @Test("vault logout reaches an agent that names the same vault file otherwise (auto, another path to it)")
    func logoutReachesAnAgentOfTheSameFileSpelledOtherwise() async throws {
        try await AgentEndToEndTests.with(accessTTL: 300) { setup in
            let passphrase = "agent spelling passphrase 2d7a"
            let (file, given) = try await setup.loginToFileVault(passphrase: passphrase)
            let path = setup.directory + "/alice.token"
            var unit = file.merging(given) { $1 }
            unit["VAULT_BACKEND"] = "auto"
            unit["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(setup.directory)/no-bus"
            let agent = try await setup.startAgent(["--token-file", "\(path)=\(setup.alice)@\(setup.url)"], extra: unit)
            defer { agent.kill() }
            #expect(
                await eventually(limit: .seconds(20), every: .milliseconds(100)) { FileManager.default.fileExists(atPath: path) }, "\(agent.output)")
            #expect(symlink(setup.directory, setup.directory + "/alias") == 0)
            var shell = file.merging(given) { $1 }
            shell["VAULT_FILE"] = setup.directory + "/alias/vault.db"
            let logout = try await setup.vault(["logout", "-v", setup.url, setup.alice], extra: shell)
            #expect(logout.status == 0, "\(logout.err)")
            #expect(logout.err.contains("told to read \(setup.alice) on \(setup.url) again"), "\(logout.err)")
            #expect(!FileManager.default.fileExists(atPath: path), "the token file outlived the logout: \(agent.output)")
        }
    }

    /// Attack review 48, finding 4: a token file the agent could not remove (its directory
    /// turned unsafe) was left behind while `vault logout` said nothing.
    @Test("a token file the agent cannot remove at a logout: the logout says so; once the directory is safe again, it goes")
    func logoutSaysWhenATokenFileStays() async throws {
        try await AgentEndToEndTests.with(accessTTL: 300) { setup in
            let (agent, directory, path) = try await setup.keepAliceInNewDirectory("tokens")
            defer { agent.kill() }
            #expect(chmod(directory, 0o770) == 0)
            let logout = try await setup.vault(["logout", setup.url, setup.alice])
            #expect(logout.status == 0, "\(logout.err)")
            #expect(logout.err.contains("agent at \(setup.socket): the token file could not be removed"), "\(logout.err)")
            #expect(FileManager.default.fileExists(atPath: path))
            #expect(chmod(directory, 0o700) == 0)
            let gone = await eventually(limit: .seconds(60), every: .milliseconds(100)) { !FileManager.default.fileExists(atPath: path) }
            #expect(gone, "the agent never tried again: \(agent.output)")
        }
    }

    /// Attack review 48b, finding 2: a change told to a locked agent removed the token file
    /// (the store could not be read), and after the unlock the file stayed away until the
    /// next planned refresh.
    @Test("a change while the agent is locked removes the token file; after vault unlock it is written again")
    func tokenFileBackAfterUnlock() async throws {
        try await AgentEndToEndTests.with(accessTTL: 300) { setup in
            let (file, given) = try await setup.loginToFileVault(passphrase: "agent unlock passphrase 9c3e")
            let path = setup.directory + "/alice.token"
            // Not given the passphrase: the key comes from the key cache, as after `vault unlock`.
            let agent = try await setup.startAgent(["--token-file", "\(path)=\(setup.alice)@\(setup.url)"], extra: file)
            defer { agent.kill() }
            guard await eventually(limit: .seconds(20), every: .milliseconds(100), { FileManager.default.fileExists(atPath: path) }) else {
                print("the kernel key cache is unavailable here; the agent cannot open the vault (\(agent.output))")
                return
            }
            #expect(try await setup.vault(["lock"], extra: file).status == 0)
            // The password item only: the tokens stay, but the locked agent cannot read the store.
            let removed = try await setup.vault(["remove", setup.url, setup.alice], extra: file.merging(given) { $1 })
            #expect(removed.status == 0, "\(removed.err)")
            #expect(!FileManager.default.fileExists(atPath: path), "\(agent.output)")
            #expect(try await setup.vault(["unlock"], extra: file.merging(given) { $1 }).status == 0)
            let back = await eventually(limit: .seconds(30), every: .milliseconds(100)) { FileManager.default.fileExists(atPath: path) }
            #expect(back, "the token file did not come back after vault unlock: \(agent.output)")
        }
    }

    /// Finding 5: `vault lock` missed an agent on another socket place and said nothing.
    @Test("vault lock reaches an agent listening at the fallback place while its own XDG_RUNTIME_DIR names another")
    func lockReachesEveryPlace() async throws {
        let fallback = "/tmp/vault-agent-\(getuid())/agent.sock"
        try await AgentEndToEndTests.with(accessTTL: 300) { setup in
            let cron = ["VAULT_AGENT_SOCKET": "", "XDG_RUNTIME_DIR": ""]
            if access(fallback, F_OK) == 0, try await setup.vault(["agent", "--check"], extra: cron).status == 0 {
                print("an agent of this user answers at \(fallback) already: not disturbing it")
                return
            }
            try await setup.login(setup.alice)
            // Started as from cron: no XDG_RUNTIME_DIR, no VAULT_AGENT_SOCKET.
            let agent = try await setup.startAgent(["--account", setup.url, setup.alice], extra: cron)
            defer { agent.kill() }
            #expect(agent.output.contains("serving at \(fallback)"), "\(agent.output)")
            let runtime = setup.directory + "/session-run"
            #expect(mkdir(runtime, 0o700) == 0)
            // The lock of a vault file of its own (the keyring has no key to drop), as a session's shell runs it.
            let session = [
                "VAULT_AGENT_SOCKET": "", "XDG_RUNTIME_DIR": runtime, "VAULT_BACKEND": "file", "VAULT_FILE": setup.directory + "/vault.db",
            ]
            let lock = try await setup.vault(["lock", "-v"], extra: session)
            #expect(lock.status == 0, "\(lock.err)")
            #expect(lock.err.contains("agent at \(fallback): told to drop its keys"), "\(lock.err)")
            #expect(lock.err.contains("the agent dropped its keys too") || lock.err.contains("agents dropped their keys too"), "\(lock.err)")
            #expect(
                await eventually(limit: .seconds(10), every: .milliseconds(100)) { agent.output.contains("locked: the store's keys") },
                "\(agent.output)")
            // Stopped, not killed: the agent removes its socket, and the place is free for the next run.
            agent.terminate()
            #expect(try await agent.finishAsync(timeout: 30).status == 0, "\(agent.output)")
        }
    }

    /// Finding 7: after `vault passwd` an agent given the old passphrase could read nothing
    /// more, and retried its refreshes for ever without a word.
    @Test("vault passwd: the agent drops the old key, opens the vault with the new one from the key cache, and keeps refreshing")
    func passwdReachesTheAgent() async throws {
        try await AgentEndToEndTests.with(accessTTL: 4) { setup in
            let passphrase = "agent passwd passphrase 7e21"
            let (file, given) = try await setup.loginToFileVault(passphrase: passphrase)
            let agent = try await setup.startAgent([], extra: file.merging(given) { $1 })
            defer { agent.kill() }
            let newFile = setup.directory + "/new-passphrase"
            #expect(
                FileManager.default.createFile(atPath: newFile, contents: Data("agent passwd new 0b94".utf8), attributes: [.posixPermissions: 0o600]))
            let passwd = try await setup.vault(["passwd", "-v", "--new-passphrase-file", newFile], extra: file.merging(given) { $1 })
            #expect(passwd.status == 0, "\(passwd.err)")
            #expect(passwd.err.contains("agent at \(setup.socket): told to drop the old key"), "\(passwd.err)")
            let cacheWorks = try await setup.vault(["list"], extra: file.merging(["VAULT_AGENT": "off"]) { $1 })
            guard cacheWorks.status == 0 else {
                print("the kernel key cache is unavailable here; the agent cannot take the new key from it (\(cacheWorks.err))")
                return
            }
            // Two refreshes after the new passphrase: the agent reads and writes the re-encrypted vault.
            let refreshes = setup.server.stats.refreshes
            let logins = setup.server.stats.logins
            let kept = await eventually(limit: .seconds(30), every: .milliseconds(100)) { setup.server.stats.refreshes >= refreshes + 2 }
            #expect(kept, "the agent stopped keeping the account after vault passwd: \(agent.output)")
            #expect(!agent.output.contains("not stored") && !agent.output.contains("failed"), "\(agent.output)")
            // What the agent stored is what the vault holds: the last refresh token is the live one.
            let stopped = agent.output.count
            agent.terminate()
            #expect(try await agent.finishAsync(timeout: 30).status == 0, "\(agent.output.dropFirst(stopped))")
            let own = try await setup.vault(
                ["token", setup.url, setup.alice], extra: file.merging(["VAULT_AGENT": "off", "VAULT_PASSPHRASE": "agent passwd new 0b94"]) { $1 })
            #expect(own.status == 0, "\(own.err)")
            #expect(setup.server.stats.failedRefreshes == 0 && setup.server.stats.logins == logins, "a spent refresh token was stored")
        }
    }
}
