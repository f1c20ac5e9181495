// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Testing
import VaultStoreCLI

/// Which `vault token` command lines the small `vault` serves from the agent itself, and
/// where the agent's socket is.
@Suite(.offThePool) struct AgentTokenFastPathTests {
    @Test("understood whole: names positionally or by option, -v, the store-choosing options")
    func understood() throws {
        let plain = try #require(AgentTokenFastPath.parse(["https://a.example", "alice"]))
        #expect(plain.server == "https://a.example" && plain.account == "alice" && !plain.verbose && plain.options.isEmpty)
        let options = try #require(
            AgentTokenFastPath.parse(["--server=https://a.example", "-v", "--account", "alice", "--backend", "file", "--file=/x/v.db"]))
        #expect(options.server == "https://a.example" && options.account == "alice" && options.verbose)
        #expect(options.options == ["--backend": "file", "--file": "/x/v.db"])
        let mixed = try #require(AgentTokenFastPath.parse(["--server", "http://127.0.0.1:8080", "bob", "--etcd-prefix", "/p/"]))
        #expect(mixed.account == "bob" && mixed.options["--etcd-prefix"] == "/p/")
    }

    @Test("anything else is handed to vault-auth as it is")
    func handedOver() {
        let refused: [[String]] = [
            [], ["https://a.example"], ["https://a.example", "alice", "extra"], ["https://a.example", "alice", "--timeout", "5"],
            ["https://a.example", "alice", "--passphrase-file", "/p"], ["https://a.example", "alice", "--no-key-cache"],
            ["https://a.example", "alice", "--help"], ["--", "https://a.example", "alice"], ["https://a.example", "alice", "--backend"],
            ["https://a.example", "alice", "--backend", "nonsense"], ["--server", "https://a", "--server", "https://b", "alice"],
            ["--server", "-v", "alice"], ["a.example", "alice"], ["https://a.example?x=1", "alice"], ["https://u:p@a.example", "alice"],
            ["https://a.example", ""], ["--server", "https://a.example", "https://a.example", "alice"],
        ]
        for arguments in refused { #expect(AgentTokenFastPath.parse(arguments) == nil, "\(arguments)") }
    }

    @Test("the socket: off, VAULT_AGENT_SOCKET, else the runtime directory's, else /tmp's")
    func socketPath() {
        #expect(AgentVariables.socketPath(["VAULT_AGENT": "off", "VAULT_AGENT_SOCKET": "/s"]) == nil)
        #expect(AgentVariables.socketPath(["VAULT_AGENT_SOCKET": "/s", "XDG_RUNTIME_DIR": "/run/user/7"]) == "/s")
        #expect(AgentVariables.socketPath(["VAULT_AGENT_SOCKET": "", "XDG_RUNTIME_DIR": "/run/user/7"]) == "/run/user/7/vault/agent.sock")
        #expect(AgentVariables.socketPath([:])?.hasPrefix("/tmp/vault-agent-") == true)
    }
}
