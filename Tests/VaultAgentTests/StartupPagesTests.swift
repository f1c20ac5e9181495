// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Testing
import VaultTestSupport

@testable import VaultAgent

/// The agent gives back its start-up pages (docs/agent.md, "Memory"): the program file's
/// mappings are found, advised, and the process goes on running the code in them.
@Suite("vault agent: start-up pages given back", .offThePool)
struct StartupPagesTests {
    @Test("the private mappings of the program are read from a maps text, and no others")
    func mappingsOfTheProgram() {
        let maps = """
            55d0c0000000-55d0c0100000 r--p 00000000 fe:01 123 /usr/bin/vault auth
            55d0c0100000-55d0c0900000 r-xp 00100000 fe:01 123 /usr/bin/vault auth
            55d0c0900000-55d0c0a00000 rw-p 00900000 fe:01 123 /usr/bin/vault auth
            55d0c0a00000-55d0c0b00000 rw-s 00a00000 fe:01 123 /usr/bin/vault auth
            7f0000000000-7f0000100000 r-xp 00000000 fe:01 456 /usr/lib/x86_64-linux-gnu/libc.so.6
            7f0000200000-7f0000300000 r-xp 00000000 fe:01 123 /usr/bin/vault authx
            7f0000300000-7f0000400000 rw-p 00000000 00:00 0
            zz-7f0000400000 r-xp 00000000 fe:01 123 /usr/bin/vault auth
            """
        #expect(
            StartupPages.mappings(in: maps, program: "/usr/bin/vault auth") == [
                .init(start: 0x55d0_c000_0000, end: 0x55d0_c010_0000), .init(start: 0x55d0_c010_0000, end: 0x55d0_c090_0000),
                .init(start: 0x55d0_c090_0000, end: 0x55d0_c0a0_0000),
            ])
    }

    @Test("release advises the program's own code, which keeps running afterwards")
    func releaseAdvisesTheProgram() {
        let mappings = StartupPages.programMappings()
        let total = mappings.reduce(0) { $0 + Int($1.end - $1.start) }
        #expect(mappings.count >= 2 && total > 0, "the test program's code and constants")
        #expect(StartupPages.release() == total, "every mapping advised (Linux 5.4 or later)")
        // The code just given back runs again: it comes back from the file.
        #expect(StartupPages.release() == total)
        #expect(StartupPages.mappings(in: "", program: "/x").isEmpty)
    }
}
