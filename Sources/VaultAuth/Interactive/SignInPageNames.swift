// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// How the loopback listener's pages (``LoopbackRedirectListener``) name the program that
/// runs the sign-in and tell a person to start it again, so a program that embeds
/// VaultAuth speaks in its own name: the `vault` command passes "vault" and "Run vault
/// login again."; ``neutral`` names no program.
public struct SignInPageNames: Sendable, Equatable {
    /// The program, as a page names it within a sentence ("vault").
    public var program: String
    /// One sentence that tells a person how to start a new sign-in.
    public var startAgain: String

    /// Names for the pages of `program`; `startAgain` is one sentence.
    public init(program: String, startAgain: String) {
        self.program = program
        self.startAgain = startAgain
    }

    /// "this program", "Start the sign-in again."
    public static let neutral = SignInPageNames(program: "this program", startAgain: "Start the sign-in again.")
}
