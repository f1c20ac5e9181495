// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import VaultStore
import VaultStoreCLI

/// One `NAME=ACCOUNT@SERVER` of `vault exec`: the environment variable `NAME` gets the
/// secret of the item (`--env`) or a valid access token of the account (`--token`).
///
/// The account is everything before the last `@` (so an e-mail address is an account);
/// `NAME` is a portable variable name (`[A-Za-z_][A-Za-z0-9_]*`).
struct ExecBinding: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// `--env`: the item's secret.
        case secret
        /// `--token`: an access token, refreshed or logged in again first when needed.
        case token
    }

    let name: String
    let account: String
    let server: String
    let kind: Kind

    /// Parses `text` (the value of `--env` or `--token`, named by `option` in errors).
    init(parsing text: String, kind: Kind, option: String) throws(ValidationError) {
        guard let equals = text.firstIndex(of: "="), let at = text.lastIndex(of: "@"), equals < at else {
            throw ValidationError("\(option) takes NAME=ACCOUNT@SERVER")
        }
        let name = String(text[..<equals])
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic),
            name.unicodeScalars.allSatisfy({ $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) })
        else {
            throw ValidationError(
                "\(option): '\(TextEscaping.escaped(UsageMessage.shown(name)))' is not an environment variable name "
                    + "(letters, digits and _, not first a digit)")
        }
        // The dynamic loader reads LD_* before the command runs, and prints what it cannot use.
        guard !name.hasPrefix("LD_") else {
            throw ValidationError("\(option): \(UsageMessage.shown(name)) is read by the dynamic loader; choose another name")
        }
        self.name = name
        account = String(text[text.index(after: equals)..<at])
        server = String(text[text.index(after: at)...])
        self.kind = kind
        guard !account.isEmpty, !server.isEmpty else {
            throw ValidationError("\(option) \(UsageMessage.shown(name)): the account and the server must not be empty")
        }
        // `a@https://user:pw@host` would read as account `a@https://user:pw`: a password in a binding.
        guard !account.contains("://") else {
            throw ValidationError("\(option) \(UsageMessage.shown(name)): the server must not contain user info (user@ or user:password@)")
        }
    }

    /// The most one `NAME=value` may hold in an environment (Linux's MAX_ARG_STRLEN, 32 pages).
    static let maximumEntrySize = 32 * 4096
}
