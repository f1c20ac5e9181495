// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Testing
import VaultStore
import VaultTestSupport
import VaultTesting

@Suite(.offThePool) struct InMemoryStoreTests {
    @Test(arguments: StoreContract.Rule.allCases)
    func keepsTheContract(rule: StoreContract.Rule) throws {
        try rule.verify(InMemoryStore())
    }

    @Test func keepsTheWholeContractOnOneStore() throws {
        try StoreContract.verifyAll(InMemoryStore())
    }

    @Test func secretsNeverPrintThemselves() {
        let credential = Credential(server: "s", account: "a", secret: Secret("hunter2-very-secret"))
        for text in [
            "\(credential)", String(describing: credential.secret), String(reflecting: credential),
            String(reflecting: credential.secret),
        ] {
            #expect(!text.contains("hunter2"))
        }
        var dumped = ""
        dump(credential, to: &dumped)
        #expect(!dumped.contains("hunter2"))
    }
}
