// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import VaultStore

struct BackendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backend",
        abstract: "Print the backend that would be used, and why.")

    @OptionGroup(title: "Store options") var backendChoice: BackendChoice
    var store: StoreOptions { StoreOptions(backendChoice) }

    func run() throws {
        try reportingErrors { () throws(VaultError) in
            let decision = try store.decision()
            // One line each, tab-separated: what a bus address, a service's error text or a
            // path holds is escaped (a tab, a newline or a terminal escape of theirs).
            Terminal.print("\(decision.kind.rawValue)\t\(TextEscaping.escaped(decision.wordedReason))")
            if decision.kind == .file {
                Terminal.print("file\t\(TextEscaping.escaped(store.fileConfiguration.path))")
            }
        }
    }
}
