// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultAgentProtocol
import VaultCLI
import VaultStore
import VaultStoreCLI

/// Where the agent listens and the commands ask it, from the variables; and the store the
/// agent reopens after `vault lock`, with the key cache only.
@Suite(.offThePool) struct AgentVariablesTests {
    @Test("VAULT_AGENT_SOCKET, else XDG_RUNTIME_DIR/vault/agent.sock, else /tmp/vault-agent-UID; VAULT_AGENT=off: the commands never ask")
    func socketPath() {
        let uid = getuid()
        #expect(AgentVariables.socketPath([:]) == "/tmp/vault-agent-\(uid)/agent.sock")
        #expect(AgentVariables.socketPath(["XDG_RUNTIME_DIR": ""]) == "/tmp/vault-agent-\(uid)/agent.sock")
        #expect(AgentVariables.socketPath(["XDG_RUNTIME_DIR": "/run/user/7"]) == "/run/user/7/vault/agent.sock")
        #expect(AgentVariables.socketPath(["XDG_RUNTIME_DIR": "/run/user/7", "VAULT_AGENT_SOCKET": "/s/a.sock"]) == "/s/a.sock")
        #expect(AgentVariables.socketPath(["XDG_RUNTIME_DIR": "/run/user/7", "VAULT_AGENT_SOCKET": ""]) == "/run/user/7/vault/agent.sock")
        #expect(AgentVariables.socketPath(["VAULT_AGENT": "off", "VAULT_AGENT_SOCKET": "/s/a.sock"]) == nil)
        #expect(AgentVariables.socketPath(["VAULT_AGENT": "on", "VAULT_AGENT_SOCKET": "/s/a.sock"]) == "/s/a.sock")
        let off = ["VAULT_AGENT": "off", "VAULT_AGENT_SOCKET": "/s/a.sock"]
        #expect(AgentVariables.listenPath(off) == "/s/a.sock", "the agent itself still listens")
    }

    @Test("the places a user's order reaches: VAULT_AGENT_SOCKET, the session's runtime directory or else /run/user/UID, and the fallback")
    func noticePlaces() {
        #expect(AgentNotice.socketPlaces([:], uid: 7) == ["/run/user/7/vault/agent.sock", "/tmp/vault-agent-7/agent.sock"])
        #expect(AgentNotice.socketPlaces(["XDG_RUNTIME_DIR": ""], uid: 7) == ["/run/user/7/vault/agent.sock", "/tmp/vault-agent-7/agent.sock"])
        // A session's own runtime directory (the tests' private one) keeps /run/user/UID out.
        #expect(
            AgentNotice.socketPlaces(["XDG_RUNTIME_DIR": "/tmp/t/run", "VAULT_AGENT_SOCKET": "/s/a.sock"], uid: 7)
                == ["/s/a.sock", "/tmp/t/run/vault/agent.sock", "/tmp/vault-agent-7/agent.sock"])
        #expect(
            AgentNotice.socketPlaces(["XDG_RUNTIME_DIR": "/run/user/7", "VAULT_AGENT_SOCKET": "/run/user/7/vault/agent.sock"], uid: 7)
                == ["/run/user/7/vault/agent.sock", "/tmp/vault-agent-7/agent.sock"], "each place once")
        #expect(AgentNotice.socketPlaces(["VAULT_AGENT": "off"], uid: 7).count == 2, "VAULT_AGENT=off does not stop the user's order")
    }

    @Test("keyCacheOnly: no passphrase from a variable, a file or systemd's credential, and no prompt")
    func keyCacheOnlyGivesNoPassphrase() throws {
        var options = StoreConfiguration(variables: ["VAULT_PASSPHRASE": "pw", "HOME": "/home/u"])
        #expect(try options.context().passphrase.givenPassphrase() == Secret("pw"), "the sources are used without keyCacheOnly")
        options.keyCacheOnly = true
        let context = options.context()
        #expect(try context.passphrase.givenPassphrase() == nil)
        #expect(throws: VaultError.self) { try context.passphrase.passphrase(for: .unlock) }
        // A passphrase file is not even read (a missing one would be an error).
        var withFile = StoreConfiguration(variables: ["VAULT_PASSPHRASE_FILE": "/nonexistent/passphrase", "HOME": "/home/u"])
        withFile.passphraseFile = "/nonexistent/option"
        #expect(throws: VaultError.self) { try withFile.context().passphrase.givenPassphrase() }
        withFile.keyCacheOnly = true
        #expect(try withFile.context().passphrase.givenPassphrase() == nil)
        #expect(context.prompts.timeout == nil, "no keyring prompt after vault lock")
    }
}

/// `vault agent`'s flag values, read into the agent's types.
@Suite(.offThePool) struct AgentArgumentsTests {
    @Test("--token-file: PATH up to the first =, the account up to the last @")
    func tokenFileSplits() throws {
        let binding = try AgentArguments.tokenFile("/run/t=ok.token=ann@corp@https://Auth.Example.com/")
        #expect(binding.path == "/run/t")
        #expect(binding.account.account == "ok.token=ann@corp")
        #expect(binding.account.server == "https://auth.example.com")
        let plain = try AgentArguments.tokenFile("/home/a/api.token=alice@https://auth.example.com")
        #expect(plain.path == "/home/a/api.token" && plain.account.account == "alice")
    }

    @Test("--keep-alive: s, m, h, d or whole seconds")
    func keepAliveForms() throws {
        #expect(try AgentArguments.keepAlive("90s") == .seconds(90))
        #expect(try AgentArguments.keepAlive("30m") == .seconds(1800))
        #expect(try AgentArguments.keepAlive("2h") == .seconds(7200))
        #expect(try AgentArguments.keepAlive("1d") == .seconds(86400))
        #expect(try AgentArguments.keepAlive("45") == .seconds(45))
        for bad in ["", "s", "1.5h", "+5", "5 m", "٣s", "99999999999999d", "1w"] {
            #expect(throws: (any Error).self, "\(bad)") { try AgentArguments.keepAlive(bad) }
        }
    }

    @Test("--account: pairs, duplicates kept once, servers normalised")
    func accountPairs() throws {
        let accounts = try AgentArguments.accounts(["https://a.example.com", "ann", "https://A.example.com/", "ann", "https://b.example.com", "bob"])
        #expect(accounts.map(\.description) == ["ann@https://a.example.com", "bob@https://b.example.com"])
        #expect(throws: (any Error).self) { try AgentArguments.accounts(["https://a.example.com"]) }
        #expect(throws: (any Error).self) { try AgentArguments.accounts(["https://a.example.com", ""]) }
    }
}
