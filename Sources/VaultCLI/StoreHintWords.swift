// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore
import VaultStoreCLI
import VaultSync

/// The options of the command line that chose the store (`--backend`, `--file`, the etcd
/// options), as words to add to a command vault tells a person to run: a "run vault login"
/// hint must sign in to the store the failing command used, not the default one, where a
/// bare login of an account it does not know would ask for a password (attack review 55).
enum StoreHintWords {
    private static let words = Locked("")

    /// Remembers the store options of this process's command line.
    static func record(_ configuration: StoreConfiguration) {
        var pairs: [(String, String?)] = [("--backend", configuration.backend?.rawValue), ("--file", configuration.file)]
        pairs += [
            ("--etcd-endpoints", configuration.etcdEndpoints), ("--etcd-prefix", configuration.etcdPrefix),
            ("--etcd-cacert", configuration.etcdCacert), ("--etcd-cert", configuration.etcdCert), ("--etcd-key", configuration.etcdKey),
            ("--etcd-user", configuration.etcdUser), ("--etcd-password-file", configuration.etcdPasswordFile),
        ]
        var line: [String] = []
        for (flag, value) in pairs {
            guard let value else { continue }
            line.append(ShellWord.quoted(value).map { "\(flag) \($0)" } ?? "\(flag) …")
        }
        if configuration.etcdInsecureHttp { line.append("--etcd-insecure-http") }
        words.withLock { $0 = line.joined(separator: " ") }
    }

    /// The words, with a space in front; empty when the store was the default.
    static var suffix: String {
        let line = words.withLock { $0 }
        return line.isEmpty ? "" : " " + line
    }
}
