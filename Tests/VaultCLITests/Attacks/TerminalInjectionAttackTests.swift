// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing

/// Labels, servers and accounts are text other programs may have written: `vault list`
/// must never pass their control characters to the terminal raw.
@Suite("Attack: escape sequences in stored names and labels", .offThePool)
struct TerminalInjectionAttackTests {
    @Test("list shows hostile labels escaped, one item per line; --json escapes them as JSON does")
    func hostileLabels() async throws {
        let fixture = try HostileFixture(server: "api.example.com")
        defer { fixture.remove() }
        let label = "\u{1B}]0;owned\u{07}\u{1B}[2K\rfake line\ninjected\u{202E}"
        let save = try await VaultProcess.vaultAsync(
            ["save", "--server", "api.example.com", "--account", "alice", "--label", label],
            environment: fixture.environment, stdin: Data("s3cret-value".utf8))
        #expect(save.status == 0, "\(save.err)")
        let list = try await VaultProcess.vaultAsync(["list"], environment: fixture.environment)
        #expect(list.status == 0, "\(list.err)")
        #expect(!list.stdout.contains(0x1B) && !list.stdout.contains(0x07) && !list.stdout.contains(0x0D), "\(list.out.debugDescription)")
        #expect(list.out.split(separator: "\n").count == 1, "one item, one line: \(list.out.debugDescription)")
        #expect(list.out.contains("\\x1b]0;owned\\x07"))
        #expect(!list.out.contains("s3cret-value"))
        let json = try await VaultProcess.vaultAsync(["list", "--json"], environment: fixture.environment)
        #expect(json.status == 0)
        #expect(!json.stdout.contains(0x1B) && !json.stdout.contains(0x07))
        let items = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [[String: Any]])
        #expect(items.first?["label"] as? String == label, "JSON keeps the exact label, escaped")
    }
}
