// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import VaultAgent
import VaultAuth
import VaultStore
import VaultStoreCLI

/// The values of `vault agent`'s flags, read into the agent's types: every refusal is a
/// `ValidationError` (one line, exit 2).
package enum AgentArguments {
    /// `--account SERVER ACCOUNT`, repeated: the values in pairs. An odd count, an empty
    /// account or a server vault would not send a token to is refused.
    package static func accounts(_ values: [String]) throws(ValidationError) -> [KeptAccount] {
        guard values.count.isMultiple(of: 2) else {
            throw ValidationError("--account takes two values, the server and the account (--account SERVER ACCOUNT)")
        }
        var accounts: [KeptAccount] = []
        for index in stride(from: 0, to: values.count, by: 2) {
            try check(server: values[index], account: values[index + 1], flag: "--account")
            let account = KeptAccount(server: values[index], account: values[index + 1])
            if !accounts.contains(account) { accounts.append(account) }
        }
        return accounts
    }

    /// The longest `--keep-alive`: a year.
    package static let maximumKeepAlive: Int64 = 366 * 86_400

    /// `--keep-alive DURATION`: `90s`, `30m`, `2h`, `1d`, or whole seconds; above 0, at most a year.
    package static func keepAlive(_ text: String) throws(ValidationError) -> Duration {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var digits = Substring(text)
        var unit: Int64 = 1
        if let last = text.last, let factor = units[last] {
            digits = digits.dropLast()
            unit = factor
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber), digits.count <= 12, let count = Int64(digits),
            count > 0, count * unit <= maximumKeepAlive
        else {
            throw ValidationError("--keep-alive must be a duration such as 90s, 30m, 2h or 1d (or whole seconds), above 0 and at most 366d")
        }
        return .seconds(count * unit)
    }

    /// `--token-file PATH=ACCOUNT@SERVER`: PATH up to the first `=`, then the account up to
    /// the last `@`, then the server. PATH must be absolute.
    package static func tokenFile(_ text: String) throws(ValidationError) -> TokenFileBinding {
        let shape = "--token-file takes PATH=ACCOUNT@SERVER, such as /run/user/1000/api.token=alice@https://auth.example.com"
        guard let equals = text.firstIndex(of: "=") else { throw ValidationError(shape) }
        let path = String(text[..<equals])
        let rest = text[text.index(after: equals)...]
        guard let at = rest.lastIndex(of: "@") else { throw ValidationError(shape) }
        let account = String(rest[..<at])
        let server = String(rest[rest.index(after: at)...])
        guard path.hasPrefix("/"), path.count > 1, !path.hasSuffix("/"), !path.hasSuffix("/."), !path.hasSuffix("/..") else {
            throw ValidationError("--token-file's PATH must be an absolute file path (\(shape))")
        }
        guard !account.isEmpty, !server.isEmpty else { throw ValidationError(shape) }
        try check(server: server, account: account, flag: "--token-file")
        return TokenFileBinding(path: path, account: KeptAccount(server: server, account: account))
    }

    /// `AuthOptions.checkServer`'s refusal as a usage error naming `flag`.
    /// The account is also checked as `vault save` checks it (no control character): it
    /// goes into the agent's log lines, where a newline would forge one (attack review 48b).
    private static func check(server: String, account: String, flag: String) throws(ValidationError) {
        do throws(AuthError) {
            try AuthOptions.checkServer(server, account: account)
        } catch {
            throw ValidationError("\(flag): \(error.commandLineMessage)")
        }
        do throws(VaultError) {
            _ = try CredentialKey(server: server, account: account).validated()
        } catch {
            throw ValidationError("\(flag): \(error.worded)")
        }
    }
}
