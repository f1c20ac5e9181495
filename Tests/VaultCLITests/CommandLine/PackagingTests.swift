// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// vault as it is installed: the tree of `Scripts/build-release --install PREFIX`
/// (`VAULT_TEST_PREFIX`) and the Debian package of `Scripts/package-deb` (`VAULT_TEST_DEB`;
/// debhelper's, with vault-dbgsym beside it), unpacked with `dpkg-deb -x`. Both are release
/// builds, which take minutes: `Scripts/test` makes them once, before the tests, and names
/// them in those variables; without them these tests are skipped.
@Suite("installed: the PREFIX tree and the Debian package", .offThePool)
struct PackagingTests {
    static let prefix = ProcessInfo.processInfo.environment["VAULT_TEST_PREFIX"].flatMap { $0.isEmpty ? nil : $0 }
    static let deb = ProcessInfo.processInfo.environment["VAULT_TEST_DEB"].flatMap { $0.isEmpty ? nil : $0 }

    /// An environment with nothing of this machine's Swift toolchain or keyring: the file
    /// backend in `dir`.
    static func environment(_ dir: String) -> [String: String] {
        [
            "HOME": dir, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "VAULT_BACKEND": "file", "VAULT_FILE": "\(dir)/vault.db",
            "VAULT_PASSPHRASE": "packaging test passphrase", "VAULT_TEST_KDF_LOG2N": "10", "VAULT_KEY_CACHE_TTL": "0",
        ]
    }

    /// The checks shared by both trees: the executables run from `bin` without Swift's
    /// shared libraries, store and read a secret, and hand the sign-in commands to
    /// `vault-auth` beside them; the man pages and completions are where given.
    static func checkTree(bin: String, files: [String], manual: String, readManual: (String) async throws -> String) async throws {
        let work = try TemporaryDirectory.make(prefix: "vault-packaging")
        defer { TemporaryDirectory.remove(work) }
        let environment = environment(work)
        for name in ["vault", "vault-auth", "git-credential-vault"] {
            #expect(FileManager.default.isExecutableFile(atPath: "\(bin)/\(name)"), "\(bin)/\(name)")
            let libraries = try await ChildProcess.runAsync("/usr/bin/ldd", ["\(bin)/\(name)"], environment: environment)
            #expect(libraries.status == 0 && !libraries.out.contains("swift") && libraries.out.contains("libsecret-1"), "\(libraries.out)")
        }
        let version = try await ChildProcess.runAsync("\(bin)/vault", ["--version"], environment: environment)
        #expect(version.status == 0 && version.out.hasPrefix("0.") && version.err.isEmpty, "\(version.out) \(version.err)")
        let save = try await ChildProcess.runAsync(
            "\(bin)/vault", ["save", "--server", "api.example.com", "--account", "ci-bot"], environment: environment,
            stdin: Data("packaged-secret".utf8))
        #expect(save.status == 0, "\(save.err)")
        let load = try await ChildProcess.runAsync(
            "\(bin)/vault", ["load", "--server", "api.example.com", "--account", "ci-bot"], environment: environment)
        #expect(load.status == 0 && load.out == "packaged-secret", "\(load.err)")
        // A command vault hands to vault-auth, found beside it.
        let login = try await ChildProcess.runAsync("\(bin)/vault", ["login", "--help"], environment: environment)
        #expect(login.status == 0 && login.out.contains("--server"), "\(login.err)")
        for file in files { #expect(FileManager.default.fileExists(atPath: file), "\(file) is missing") }
        let page = try await readManual(manual)
        #expect(page.contains(".Dt VAULT 1") || page.contains(".TH VAULT"), "\(page.prefix(200))")
        for command in ["login", "load", "request"] { #expect(page.contains(command), "the man page knows \(command)") }
        for file in files where file.contains("completion") || file.hasSuffix("_vault") {
            let script = try String(contentsOfFile: file, encoding: .utf8)
            #expect(script.contains("login") && script.contains("load"), "\(file) completes every command")
        }
    }

    @Test(
        "Scripts/build-release --install PREFIX: binaries, man pages, completions where each shell looks",
        .enabled(if: prefix != nil, "VAULT_TEST_PREFIX is not set: Scripts/test-packaging (or VAULT_TEST_PACKAGING=1 Scripts/test) installs a tree"))
    func installedTree() async throws {
        let prefix = try #require(Self.prefix)
        let files = [
            "share/man/man1/vault.1", "share/man/man1/git-credential-vault.1", "share/man/man1/vault-auth.1",
            "share/bash-completion/completions/vault", "share/zsh/site-functions/_vault", "share/fish/vendor_completions.d/vault.fish",
            "lib/systemd/user/vault-agent.service", "lib/systemd/user/vault-agent.socket",
        ].map { "\(prefix)/\($0)" }
        try await Self.checkTree(bin: "\(prefix)/bin", files: files, manual: "\(prefix)/share/man/man1/vault.1") {
            try String(contentsOfFile: $0, encoding: .utf8)
        }
        let service = try String(contentsOfFile: "\(prefix)/lib/systemd/user/vault-agent.service", encoding: .utf8)
        #expect(service.contains("\nExecStart=\(prefix)/bin/vault agent\n") && service.contains("\nType=notify\n"), "\(service)")
    }

    @Test(
        "Scripts/package-deb: the unpacked package runs, stripped, with its man pages, completions and copyright; Depends: names libsecret and glib",
        .enabled(if: deb != nil, "VAULT_TEST_DEB is not set: Scripts/test-packaging (or VAULT_TEST_PACKAGING=1 Scripts/test) builds the package"))
    func debianPackage() async throws {
        let deb = try #require(Self.deb)
        let root = try TemporaryDirectory.make(prefix: "vault-deb")
        defer { TemporaryDirectory.remove(root) }
        let unpacked = try await ChildProcess.runAsync("/usr/bin/dpkg-deb", ["-x", deb, root])
        #expect(unpacked.status == 0, "\(unpacked.err)")
        let depends = try await ChildProcess.runAsync("/usr/bin/dpkg-deb", ["-f", deb, "Depends"])
        #expect(depends.out.contains("libsecret-1-0") && depends.out.contains("libglib2.0-0") && !depends.out.contains("swift"), "\(depends.out)")
        let files = [
            "usr/share/man/man1/vault.1.gz", "usr/share/man/man1/git-credential-vault.1.gz", "usr/share/man/man1/vault-auth.1.gz",
            "usr/share/bash-completion/completions/vault", "usr/share/zsh/vendor-completions/_vault",
            "usr/share/fish/vendor_completions.d/vault.fish", "usr/share/doc/vault/copyright", "usr/share/doc/vault/changelog.Debian.gz",
            "usr/share/doc/vault/changelog.gz", "usr/lib/systemd/user/vault-agent.service", "usr/lib/systemd/user/vault-agent.socket",
            "usr/lib/systemd/user/vault-secret-service.service", "usr/share/doc/vault/examples/org.freedesktop.secrets.service",
        ].map { "\(root)/\($0)" }
        try await Self.checkTree(bin: "\(root)/usr/bin", files: files, manual: "\(root)/usr/share/man/man1/vault.1.gz") { path in
            try await ChildProcess.runAsync("/bin/gzip", ["-dc", path]).out
        }
        let copyright = try String(contentsOfFile: "\(root)/usr/share/doc/vault/copyright", encoding: .utf8)
        #expect(copyright.hasPrefix("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"))
        #expect(copyright.contains("License: MIT"))
        let service = try String(contentsOfFile: "\(root)/usr/lib/systemd/user/vault-agent.service", encoding: .utf8)
        #expect(service.contains("\nExecStart=/usr/bin/vault agent\n"), "\(service)")
        // gnome-keyring owns this path: the package would not install beside it.
        #expect(!FileManager.default.fileExists(atPath: "\(root)/usr/share/dbus-1/services/org.freedesktop.secrets.service"))
        // dh_strip took the debug information out, into vault-dbgsym.
        for name in ["vault", "vault-auth", "git-credential-vault"] {
            let binary = try Data(contentsOf: URL(fileURLWithPath: "\(root)/usr/bin/\(name)"))
            #expect(binary.range(of: Data(".debug_info".utf8)) == nil, "\(name) is not stripped")
        }
    }

    @Test(
        "Scripts/package-deb: vault-dbgsym beside the package holds each binary's debug information under /usr/lib/debug/.build-id",
        .enabled(if: deb != nil, "VAULT_TEST_DEB is not set: Scripts/test-packaging (or VAULT_TEST_PACKAGING=1 Scripts/test) builds the package"))
    func debugSymbolsPackage() async throws {
        let deb = try #require(Self.deb)
        // vault_VERSION_ARCH.deb, and debhelper's vault-dbgsym_VERSION_ARCH.deb beside it.
        let url = URL(fileURLWithPath: deb)
        let dbgsym = url.deletingLastPathComponent().appendingPathComponent("vault-dbgsym_" + url.lastPathComponent.dropFirst("vault_".count)).path
        #expect(FileManager.default.fileExists(atPath: dbgsym), "\(dbgsym) is missing")
        let root = try TemporaryDirectory.make(prefix: "vault-dbgsym")
        defer { TemporaryDirectory.remove(root) }
        let unpacked = try await ChildProcess.runAsync("/usr/bin/dpkg-deb", ["-x", dbgsym, root])
        #expect(unpacked.status == 0, "\(unpacked.err)")
        let version = try await ChildProcess.runAsync("/usr/bin/dpkg-deb", ["-f", deb, "Version"])
        let depends = try await ChildProcess.runAsync("/usr/bin/dpkg-deb", ["-f", dbgsym, "Depends"])
        #expect(depends.out == "vault (= \(version.out.trimmingCharacters(in: .whitespacesAndNewlines)))\n", "\(depends.out)")
        let buildID = "\(root)/usr/lib/debug/.build-id"
        let files = (FileManager.default.subpaths(atPath: buildID) ?? []).filter { $0.hasSuffix(".debug") }
        #expect(files.count == 3, "one for each of vault, vault-auth and git-credential-vault: \(files)")
        for file in files {
            let debug = try Data(contentsOf: URL(fileURLWithPath: "\(buildID)/\(file)"))
            #expect(debug.range(of: Data(".debug_info".utf8)) != nil && debug.count > 1_000_000, "\(file): \(debug.count) bytes")
        }
    }
}
