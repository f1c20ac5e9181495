// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import CLinuxSystem
import Foundation
import VaultStore

#if canImport(Glibc)
    import Glibc
#endif

/// Opens a URL in the user's browser, the way `git web--browse`, Python's `webbrowser` and
/// `gh` do: the commands of `$BROWSER` (separated by `:`; `%s` in one is replaced by the
/// URL, else the URL is its last argument), else `xdg-open` when a display exists
/// (`DISPLAY` or `WAYLAND_DISPLAY`), else nothing. The browser is started, not waited for;
/// it never gets vault's standard output, nor vault's signal mask or ignored signals. The URL
/// is also always printed by the caller, so a failed launch costs nothing.
public struct BrowserLauncher: Sendable {
    /// The environment the commands are looked up in.
    public let environment: [String: String]

    /// A launcher for `environment` (default: this process's).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// The argument vectors that would be tried for `url`, in order.
    public func commands(for url: String) -> [[String]] {
        if let browser = environment["BROWSER"], !browser.isEmpty {
            return browser.split(separator: ":").compactMap { entry in
                let words = entry.split(separator: " ").map(String.init)
                guard !words.isEmpty else { return nil }
                return words.contains { $0.contains("%s") }
                    ? words.map { $0.replacingOccurrences(of: "%s", with: url) } : words + [url]
            }
        }
        let display = [environment["DISPLAY"], environment["WAYLAND_DISPLAY"]].contains { !($0 ?? "").isEmpty }
        return display ? [["xdg-open", url]] : []
    }

    /// Starts the first command that can be started; returns its name, or nil when none could be
    /// (or there is none to try). Standard input and error are the terminal's for `$BROWSER` (a
    /// console browser needs them), `/dev/null` for `xdg-open`; standard output is always stderr.
    @discardableResult
    public func open(_ url: String) -> String? {
        let fromBrowserVariable = !(environment["BROWSER"] ?? "").isEmpty
        for command in commands(for: url) where spawn(command, quiet: !fromBrowserVariable) {
            return command[0]
        }
        return nil
    }

    /// `environment` without what the browser has no business seeing
    /// (``ChildEnvironment``: every `VAULT_*` variable and systemd's `CREDENTIALS_DIRECTORY`).
    public static func browserEnvironment(_ environment: [String: String]) -> [String: String] {
        ChildEnvironment.inherited(from: environment)
    }

    /// Marks every open descriptor above the standard three close-on-exec, so the browser
    /// inherits nothing else: not the loopback listener, not the connection to the provider,
    /// not a lock. (vault runs no other program, so this costs it nothing.)
    static func closeOnExec() {
        // One call (Linux 5.11 and later); else each descriptor /proc/self/fd lists.
        if vault_close_range_cloexec(3) == 0 { return }
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return }
        for case let descriptor? in entries.map({ Int32($0) }) where descriptor > 2 {
            let flags = fcntl(descriptor, F_GETFD)
            if flags >= 0 { _ = fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) }
        }
    }

    /// Spawn attributes for a browser that starts as from a shell: an empty signal mask
    /// (the thread that starts it may be a worker of the Swift concurrency pool, which
    /// blocks most signals, SIGTERM among them) and every signal at its default action (vault
    /// ignores SIGPIPE for itself; the two signals glibc keeps for itself, which its
    /// posix_spawn would leave ignored, are set in the set's bits directly).
    static func cleanSignals() -> posix_spawnattr_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigemptyset(&all)
        all.__val.0 = .max  // signals 1 to 64
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        return attributes
    }

    private func spawn(_ command: [String], quiet: Bool) -> Bool {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if quiet {
            for descriptor: Int32 in [0, 1, 2] {
                posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
            }
        } else {
            posix_spawn_file_actions_adddup2(&actions, 2, 1)
        }
        Self.closeOnExec()
        let arguments = command.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        let variables = Self.browserEnvironment(environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { variables.forEach { free($0) } }
        var attributes = Self.cleanSignals()
        defer { posix_spawnattr_destroy(&attributes) }
        var pid: pid_t = 0
        guard posix_spawnp(&pid, command[0], &actions, &attributes, arguments, variables) == 0 else { return false }
        // Reaped when it exits, so no zombie is left while vault waits for the redirect.
        let child = pid
        Blocking.detach {
            var status: Int32 = 0
            _ = waitpid(child, &status, 0)
        }
        return true
    }
}
