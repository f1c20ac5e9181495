// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// `vault exec`: secrets and tokens reach the command's environment, never an argument
/// list; vault becomes the command (same process, its exit status and signals); nothing
/// runs when a value cannot be had.
@Suite("vault exec", .offThePool)
struct ExecCLITests {
    static let secret = "exec-secret-3f9a-do-not-print"

    /// `vault save` of the test secret for alice@https://db.example.com in `fixture`'s vault.
    static func saveSecret(_ fixture: AuthFixture) async throws {
        let save = try await fixture.vault(["save", "--server", "https://db.example.com", "--account", "alice"], stdin: secret)
        try #require(save.status == 0, "\(save.err)")
    }

    /// The pid of the program `setsid --wait` started for `child` (vault, then what it became).
    static func programPID(_ child: ChildProcess) async throws -> Int32 {
        for _ in 0..<200 {
            if let pid = ChildProcess.descendants(of: child.process.processIdentifier).first { return pid }
            try await Task.sleep(for: .milliseconds(25))
        }
        throw CancellationError()
    }

    /// `/proc/PID/cmdline` with its NULs as spaces, once it starts with `prefix` (nil after ~10 s).
    static func commandLine(of pid: Int32, startingWith prefix: String) async throws -> String? {
        for _ in 0..<400 {
            if let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") {
                let text = String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
                if text.hasPrefix(prefix) { return text }
            }
            try await Task.sleep(for: .milliseconds(25))
        }
        return nil
    }

    @Test("the secret arrives in the environment, no argv in the chain holds it, the pid stays, and SIGTERM and SIGINT reach the command")
    func environmentArgvAndSignals() async throws {
        try await withAuthFixture { fixture in
            try await Self.saveSecret(fixture)
            for signal in [SIGTERM, SIGINT] {
                let out = "\(fixture.dir)/seen-\(signal)"
                let child = try ChildProcess.start(
                    VaultProcess.vaultPath,
                    [
                        "exec", "--env", "DB_PASSWORD=alice@https://db.example.com", "--", "/bin/sh", "-c",
                        "printf %s \"$DB_PASSWORD\" > \"$0\"; exec sleep 30", out,
                    ], environment: fixture.env)
                let pid = try await Self.programPID(child)
                let sleeping = try await Self.commandLine(of: pid, startingWith: "sleep")
                #expect(sleeping == "sleep 30 ", "vault became the command, same pid \(pid): \(sleeping ?? "not sleeping")")
                #expect(try String(contentsOfFile: out, encoding: .utf8) == Self.secret, "the environment holds the secret")
                for process in [pid] + ChildProcess.descendants(of: pid) {
                    let cmdline = FileManager.default.contents(atPath: "/proc/\(process)/cmdline") ?? Data()
                    #expect(!String(decoding: cmdline, as: UTF8.self).contains(Self.secret), "argv of \(process) holds no secret")
                }
                kill(pid, signal)
                let result = try await child.finishAsync(timeout: 20)
                #expect(result.status == signal && result.err.contains("did not exit normally"), "killed by \(signal): \(result.err)")
                #expect(!result.err.contains(Self.secret) && !result.out.contains(Self.secret))
            }
        }
    }

    @Test("the exit status is the command's; the command's descriptors are only its own; -- and a runnable command are required")
    func exitStatusAndUsage() async throws {
        try await withAuthFixture { fixture in
            try await Self.saveSecret(fixture)
            let seven = try await fixture.vault(["exec", "--env", "S=alice@https://db.example.com", "--", "/bin/sh", "-c", "exit 7"])
            #expect(seven.status == 7 && seven.err.isEmpty, "\(seven.err)")
            // What the command holds open is what the same command started directly holds:
            // nothing of vault's (its file, locks, D-Bus, event loop). Both start with only
            // stdin, stdout and stderr (a wrapper closes what the test runner's concurrent tests
            // let them inherit, which differs from one moment to the next).
            // The shell lists its own descriptors with no pipeline: a pipeline's pipe is open
            // in the shell only while it sets the pipeline up, so listing through one races.
            // The glob's own directory descriptor is closed by the time readlink runs (`|| :`).
            let list = "for fd in /proc/$$/fd/*; do readlink \"$fd\" || :; done"
            let onlyStdio = "import os, sys; os.closerange(3, 65536); os.execv(sys.argv[1], sys.argv[1:])"
            let viaVault = try await ChildProcess.runAsync(
                "/usr/bin/python3",
                ["-c", onlyStdio, VaultProcess.vaultPath, "exec", "--env", "S=alice@https://db.example.com", "--", "/bin/sh", "-c", list],
                environment: fixture.env)
            let direct = try await ChildProcess.runAsync("/usr/bin/python3", ["-c", onlyStdio, "/bin/sh", "-c", list], environment: fixture.env)
            #expect(viaVault.status == 0 && direct.status == 0, "\(viaVault.err)")
            let targets = { (listing: String) in
                listing.split(separator: "\n").map { $0.filter { !$0.isNumber } }.sorted()
            }
            #expect(
                targets(viaVault.out) == targets(direct.out) && targets(direct.out).count == 3,
                "no descriptor of vault's leaks into the command: \(viaVault.out) against \(direct.out)")

            let usage: [[String]] = [
                ["exec", "--env", "S=alice@https://db.example.com", "/bin/true"],  // no --
                ["exec", "--env", "S=alice@https://db.example.com", "--"],  // no command
                ["exec", "--env", "1S=alice@https://db.example.com", "--", "/bin/true"],
                ["exec", "--env", "S=https://db.example.com", "--", "/bin/true"],  // no account
                ["exec", "--env", "S=alice@", "--", "/bin/true"],
                ["exec", "--env", "S=alice@https://db.example.com", "--token", "S=alice@https://db.example.com", "--", "/bin/true"],
            ]
            for arguments in usage {
                let result = try await fixture.vault(arguments)
                #expect(result.status == 2 && result.err.split(separator: "\n").count == 1, "\(arguments): \(result.status) \(result.err)")
            }
            let missing = try await fixture.vault(["exec", "--", "/nonexistent/program"])
            #expect(missing.status == 127 && missing.err.contains("cannot run /nonexistent/program"), "\(missing.err)")
            let plain = "\(fixture.dir)/not-executable"
            _ = FileManager.default.createFile(atPath: plain, contents: Data("echo hi\n".utf8), attributes: [.posixPermissions: 0o600])
            let notExecutable = try await fixture.vault(["exec", "--", plain])
            #expect(notExecutable.status == 126, "\(notExecutable.err)")
        }
    }

    @Test(
        "core-file limits and given descriptors stay; VAULT_* stays out; LD_ names, huge values and user info are refused"
    )
    func whatTheCommandInherits() async throws {
        try await withAuthFixture { fixture in
            try await Self.saveSecret(fixture)
            // Soft 1024 and hard 4096 reach the command (vault lowers only its own soft limit: a
            // non-root command could not raise a hard limit vault lowered); so does descriptor 7.
            let limits = try await ChildProcess.runAsync(
                "/bin/sh",
                [
                    "-c",
                    "ulimit -Hc 4096; ulimit -Sc 1024; exec \"$0\" exec --env S=alice@https://db.example.com -- "
                        + "/bin/sh -c 'ulimit -Sc; ulimit -Hc; cat <&7' 7<\"$1\"",
                    VaultProcess.vaultPath, "/etc/hostname",
                ],
                environment: fixture.env)
            let hostname = try String(contentsOfFile: "/etc/hostname", encoding: .utf8)
            // A sanitizer's runtime sets the soft limit to 0 before vault's code runs
            // (disable_coredump, on by default on 64-bit): vault then keeps that 0.
            let soft = Sanitizer.name == nil ? "1024" : "0"
            #expect(
                limits.status == 0 && limits.out == "\(soft)\n4096\n" + hostname, "limits and a given descriptor kept: \(limits.out) \(limits.err)")

            let environment = try await fixture.vault(["exec", "--env", "S=alice@https://db.example.com", "--", "/usr/bin/env"])
            #expect(environment.status == 0 && environment.out.contains("S=\(Self.secret)\n"), "\(environment.err)")
            #expect(!environment.out.contains("VAULT_PASSPHRASE="), "the vault's passphrase is not the command's")
            #expect(!environment.out.contains("VAULT_"), "none of vault's settings reach the command (ExecReachAttackTests)")
            #expect(environment.out.contains("LANG=C.UTF-8\n"), "other variables pass")

            let big = String(repeating: "b", count: 200_000)
            _ = try await fixture.vault(["save", "--server", "https://db.example.com", "--account", "big"], stdin: big)
            let refused: [([String], String)] = [
                (["--env", "LD_PRELOAD=alice@https://db.example.com"], "dynamic loader"),
                (["--env", "S=big@https://db.example.com"], "128 KiB"),
                (["--env", "S=alice@https://user:pw-7@db.example.com"], "user info"),
            ]
            for (arguments, why) in refused {
                let result = try await fixture.vault(["exec"] + arguments + ["--", "/bin/true"])
                #expect(result.status == 2 && result.err.contains(why), "\(arguments): \(result.err)")
                #expect(!result.err.contains("pw-7") && !result.err.contains(Self.secret) && !result.err.contains(big))
            }
        }
    }

    @Test("a missing item or an account that is not logged in exits 1, one line each, and the command never runs")
    func nothingStartsWithoutItsValues() async throws {
        try await withAuthFixture { fixture in
            try await Self.saveSecret(fixture)
            let marker = "\(fixture.dir)/ran"
            let missing = try await fixture.vault([
                "exec", "--env", "S=alice@https://db.example.com", "--env", "T=nobody@https://db.example.com", "--", "/usr/bin/touch", marker,
            ])
            #expect(missing.status == 1 && missing.err.contains("no item") && missing.err.split(separator: "\n").count == 1, "\(missing.err)")
            let noLogin = try await fixture.vault(["exec", "--token", "T=alice@\(fixture.url)", "--", "/usr/bin/touch", marker])
            #expect(
                noLogin.status == 1 && noLogin.err == "vault: no account \"alice\" on \(fixture.url) (no account is logged in there)\n",
                "\(noLogin.err)")
            #expect(!FileManager.default.fileExists(atPath: marker), "the command never ran")
            for result in [missing, noLogin] { #expect(!result.err.contains(Self.secret)) }
        }
    }

    @Test("--token gives a valid access token, refreshed first when it has expired")
    func tokenIsFreshAndRefreshed() async throws {
        // A 16 s token: stale after 8 s. The refreshed one stays fresh for 8 s, long enough
        // for `vault token` to show the same one even on a loaded machine (4 s was not).
        try await withAuthFixture(accessTTL: 16) { fixture in
            let login = try await fixture.login()
            try #require(login.status == 0, "\(login.err)")
            try await Task.sleep(for: .milliseconds(16200))  // the access token expires
            let out = "\(fixture.dir)/token"
            let exec = try await fixture.vault([
                "exec", "--token", "API_TOKEN=alice@\(fixture.url)", "--", "/bin/sh", "-c", "printf %s \"$API_TOKEN\" > \"$0\"", out,
            ])
            #expect(exec.status == 0, "\(exec.err)")
            #expect(fixture.server.stats.refreshes == 1, "refreshed before the command started")
            let handed = try String(contentsOfFile: out, encoding: .utf8)
            let current = try await fixture.vault(["token", "--server", fixture.url, "--account", "alice"])
            #expect(current.status == 0 && current.out == handed + "\n" && handed.count > 20, "the command got the refreshed token")
            #expect(!exec.err.contains(handed) && !exec.out.contains(handed))

            // After networking (SwiftNIO) ran in vault, the command's ignored and blocked signals
            // (1 to 32: glibc's own above that differ in any program) and its core-file limit are
            // those of the same command started directly. `env --default-signal` starts both with
            // no signal ignored, so a SIGPIPE vault ignored would show.
            let state =
                "grep -E '^(SigIgn|SigBlk)' /proc/$$/status | sed 's/\\t.*\\(........\\)$/ \\1/'; ulimit -c; "
                + "for fd in /proc/$$/fd/*; do readlink \"$fd\"; done | tr -d 0-9 | sort"
            // Both start with only stdin, stdout and stderr (what the test runner's concurrent
            // tests let a child inherit differs from one moment to the next).
            let onlyStdio = "import os, sys; os.closerange(3, 65536); os.execv(sys.argv[1], sys.argv[1:])"
            let viaVault = try await ChildProcess.runAsync(
                "/usr/bin/python3",
                [
                    "-c", onlyStdio, "/usr/bin/env", "--default-signal", VaultProcess.vaultPath, "exec", "--token", "T=alice@\(fixture.url)", "--",
                    "/bin/sh", "-c", state,
                ],
                environment: fixture.env)
            let direct = try await ChildProcess.runAsync(
                "/usr/bin/python3", ["-c", onlyStdio, "/usr/bin/env", "--default-signal", "/bin/sh", "-c", state], environment: fixture.env)
            #expect(viaVault.status == 0 && viaVault.out == direct.out, "\(viaVault.out) against \(direct.out): \(viaVault.err)")
            fixture.expectNoLeak(exec)
        }
    }
}
