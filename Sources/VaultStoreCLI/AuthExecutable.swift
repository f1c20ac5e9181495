// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `vault-auth`, the executable with every command, installed next to `vault`.
public enum AuthExecutable {
    /// Set by `vault` for the `vault-auth` it runs, which removes it at once: a `vault`
    /// that finds it set was run by `vault` in place of `vault-auth` (a copy or link of
    /// `vault` under that name) and stops instead of running itself for ever.
    static let handOverVariable = "VAULT_HANDED_OVER_TO_VAULT_AUTH"

    /// The hand-over mark's value when `vault` asked the agent already (for `vault token`):
    /// `vault-auth` then does the work itself without asking it again.
    static let agentAskedMark = "agent-asked"

    /// True when the `vault` that handed this command over asked the agent already, and it
    /// did not serve (read once, before ``forgetHandOver()`` removes the mark).
    package static let agentAskedBeforeHandOver: Bool = getenv(handOverVariable).map { String(cString: $0) == agentAskedMark } ?? false

    /// Removes the hand-over mark, so nothing this process starts inherits it.
    public static func forgetHandOver() {
        _ = agentAskedBeforeHandOver
        unsetenv(handOverVariable)
    }

    /// `vault-auth` in the directory of the running executable (`/proc/self/exe`, so a
    /// symbolic link to `vault` elsewhere still finds it).
    static var path: String? {
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
            let slash = executable.lastIndex(of: "/")
        else { return nil }
        return String(executable[...slash]) + "vault-auth"
    }

    /// True when `vault-auth` is there, next to this executable, and may be run.
    static var isInstalled: Bool { path.map { access($0, X_OK) == 0 } ?? false }

    /// Replaces this process with `vault-auth ARGUMENTS` (`execv`: the same process id,
    /// environment, descriptors and signals, so its exit status is the command's). The
    /// program name the user typed is kept as `argv[0]`. When it cannot be run, one line
    /// and exit 4.
    /// `agentAsked`: the agent was asked for this command and did not serve it.
    static func replaceProcess(arguments: [String], agentAsked: Bool = false) -> Never {
        guard let path else {
            Terminal.note("cannot find vault-auth: /proc/self/exe cannot be read")
            Terminal.exit(ExitStatus.unavailable)
        }
        if getenv(handOverVariable) != nil {
            Terminal.note("\(path) runs vault again instead of the sign-in commands: install vault-auth next to vault")
            Terminal.exit(ExitStatus.unavailable)
        }
        setenv(handOverVariable, agentAsked ? agentAskedMark : "1", 1)
        let argv = ([CommandLine.arguments.first ?? "vault"] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        unsetenv(handOverVariable)
        let reason = String(cString: strerror(errno))
        Terminal.note("cannot run \(path) (\(reason)): vault-auth runs the commands other than the store's; install it next to vault")
        Terminal.exit(ExitStatus.unavailable)
    }
}
