// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// Every child that vault or its tests start begins as from a shell: no signal blocked, none
/// ignored. A thread of the Swift concurrency pool blocks most signals (libdispatch does so
/// in its workers) and vault ignores SIGPIPE; a child that inherited either would ignore
/// SIGTERM (the `dbus-daemon` that outlived each `Scripts/test` run) or SIGPIPE.
@Suite("children start with no signal blocked or ignored", .offThePool)
struct ChildSignalTests {
    /// The `SigBlk` and `SigIgn` masks of a `/proc/PID/status` text, as hex strings.
    static func masks(_ status: String) -> (blocked: String?, ignored: String?) {
        func value(_ name: String) -> String? {
            status.split(separator: "\n").first { $0.hasPrefix("\(name):") }.map {
                $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces)
            }
        }
        return (value("SigBlk"), value("SigIgn"))
    }

    static let none = "0000000000000000"

    @Test("a ChildProcess started from a worker of the concurrency pool, SIGPIPE ignored here")
    func childProcessStartsClean() async throws {
        _ = signal(SIGPIPE, SIG_IGN)  // as vault does; a child must not inherit it
        let result = try await Task.detached {
            try await ChildProcess.runAsync("/bin/cat", ["/proc/self/status"], environment: ["PATH": "/usr/bin:/bin"])
        }.value
        #expect(result.status == 0, "\(result.err)")
        let masks = Self.masks(result.out)
        #expect(masks.blocked == Self.none, "SigBlk \(masks.blocked ?? "?")")
        #expect(masks.ignored == Self.none, "SigIgn \(masks.ignored ?? "?")")
    }

    @Test("the browser vault login starts (vault ignores SIGPIPE for itself)")
    func browserStartsClean() async throws {
        try await withSignInFixture { fixture in
            let report = "\(fixture.auth.dir)/browser-signals"
            let browser = "\(fixture.auth.dir)/reporting-browser"
            // sh leaves the dispositions it was given alone, and reads its own status with
            // builtins only (dash blocks every signal for a moment around each fork: a
            // `cat` could see that); then the usual test browser.
            let script = """
                #!/bin/sh
                while IFS= read -r line; do printf '%s\\n' "$line"; done </proc/$$/status >"$TEST_BROWSER_SIGNALS.tmp"
                mv "$TEST_BROWSER_SIGNALS.tmp" "$TEST_BROWSER_SIGNALS"
                exec \(SignInFixture.browserPath) "$@"

                """
            // Close-on-exec: vault runs it at once, and a child another test spawns meanwhile
            // must not hold it open for writing (ETXTBSY).
            try ScriptFile.write(script, to: browser)
            var environment = fixture.browserEnvironment()
            environment["BROWSER"] = browser
            environment["TEST_BROWSER_SIGNALS"] = report
            let login = try await fixture.auth.vault(
                [
                    "login", "--server", fixture.url, "--account", "alice", "--provider", "oidc", "--issuer", fixture.url,
                    "--client-id", SignInFixture.client,
                ], env: environment)
            #expect(login.status == 0, "\(login.err)")
            let status = try String(contentsOfFile: report, encoding: .utf8)
            let masks = Self.masks(status)
            #expect(masks.blocked == Self.none, "SigBlk \(masks.blocked ?? "?")")
            #expect(masks.ignored == Self.none, "SigIgn \(masks.ignored ?? "?")")
        }
    }

    @Test("Scripts/with-keyring started by a test leaves no dbus-daemon or keyring daemon behind")
    func withKeyringLeavesNothing() async throws {
        let root = PackageRoot.path
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        environment["VAULT_KEYRING_HOME"] = nil
        // From a worker of the pool, as the tests that start a keyring of their own do; the
        // command prints the pids of the bus daemon and of gnome-keyring-daemon.
        let pidsCommand = """
            gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
            --method org.freedesktop.DBus.GetConnectionUnixProcessID org.freedesktop.DBus; \
            gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
            --method org.freedesktop.DBus.GetConnectionUnixProcessID org.freedesktop.secrets
            """
        let result = try await Task.detached {
            try await ChildProcess.runAsync("\(root)/Scripts/with-keyring", ["/bin/sh", "-c", pidsCommand], environment: environment)
        }.value
        #expect(result.status == 0, "\(result.err)")
        let pids = result.out.matches(of: #/\(uint32 ([0-9]+),\)/#).compactMap { Int32($0.1) }
        #expect(pids.count == 2, "\(result.out)")
        // dbus-run-session stops the bus after the command; give it a moment.
        let deadline = Date().addingTimeInterval(5)
        var alive = pids.filter { kill($0, 0) == 0 }
        while !alive.isEmpty && Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
            alive = pids.filter { kill($0, 0) == 0 && !Self.isZombie($0) }
        }
        #expect(alive.isEmpty, "still running: \(alive)")
    }

    /// GNOME Keyring 42.1 can crash (docs/secret-service.md); the next client call then
    /// D-Bus-activates a new daemon, which got the bus's environment: the caller's HOME,
    /// that is the user's own keyring.
    @Test("Scripts/with-keyring: a keyring daemon D-Bus-activated after a crash gets the private HOME and is stopped at exit")
    func withKeyringActivatedDaemonStaysPrivate() async throws {
        let root = PackageRoot.path
        try await withTemporaryDirectory("with-keyring-activation") { home in
            var environment = ProcessInfo.processInfo.environment
            environment["DBUS_SESSION_BUS_ADDRESS"] = nil
            environment["VAULT_KEYRING_HOME"] = nil
            environment["HOME"] = home
            // Kill the daemon, wait until the name has no owner, activate a new one with a
            // Secret Service call, and print its pid and HOME.
            let crashAndActivate = #"""
                owner() { gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
                  --method org.freedesktop.DBus.GetConnectionUnixProcessID org.freedesktop.secrets 2>/dev/null |
                  sed -n 's/^(uint32 \([0-9]*\),)$/\1/p'; }
                first=$(owner); kill -KILL "$first"
                i=0; while [ -n "$(owner)" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
                gdbus call --session --timeout 20 --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets \
                  --method org.freedesktop.DBus.Properties.Get org.freedesktop.Secret.Service Collections >/dev/null || exit 9
                second=$(owner); echo "first=$first second=$second"
                tr '\0' '\n' < /proc/$second/environ | sed -n 's/^HOME=/home=/p'
                """#
            let result = try await Task.detached {
                try await ChildProcess.runAsync("\(root)/Scripts/with-keyring", ["/bin/sh", "-c", crashAndActivate], environment: environment)
            }.value
            #expect(result.status == 0, "\(result.err)")
            let pids = result.out.matches(of: #/first=([0-9]+) second=([0-9]+)/#).first.map { (Int32($0.1), Int32($0.2)) }
            let second = pids?.1 ?? 0
            #expect(second > 0 && second != pids?.0, "\(result.out)")
            let activatedHome = result.out.matches(of: #/home=(.*)/#).first.map { String($0.1) } ?? ""
            #expect(!activatedHome.isEmpty && !activatedHome.hasPrefix(home), "activated with HOME=\(activatedHome)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: home).isEmpty, "the caller's HOME was written to")
            let deadline = Date().addingTimeInterval(5)
            while second > 0, kill(second, 0) == 0, !Self.isZombie(second), Date() < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(second > 0 && (kill(second, 0) != 0 || Self.isZombie(second)), "the activated daemon \(second) still runs")
        }
    }

    /// Whether `pid` has ended and waits for its parent to reap it.
    static func isZombie(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")")
        else { return true }
        return stat[stat.index(after: close)...].split(separator: " ").first == "Z"
    }
}
