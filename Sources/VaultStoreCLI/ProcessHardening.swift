// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import CLinuxSystem
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Keeps secrets in this process's memory out of core files and out of other
/// processes' reach: no core dump is written when `vault` crashes (`RLIMIT_CORE` 0), and
/// the process is not dumpable (`PR_SET_DUMPABLE` 0), so other processes of the same
/// user cannot attach to it or read its memory through `/proc`. A standard descriptor
/// the caller closed (`vault load >&-`) is held by `/dev/null` opened read-only, so no file
/// vault opens can become "standard output" and a write there fails instead. No signal
/// stays blocked: a parent that starts vault from a thread that blocks signals (a thread
/// pool's worker) would otherwise leave it deaf to Ctrl-C and `kill` at a prompt.
/// `SIGPIPE` is ignored, so standard output that cannot be written (a closed pipe) is one
/// line and exit 4 from ``Terminal/write(_:)`` in every command, never a death by signal.
package enum ProcessHardening {
    package static func apply() {
        recordInheritedState()
        // The soft limit only: it is the one that applies, and a hard limit lowered to 0
        // could not be raised again for a command `vault exec` runs (without privilege).
        var none = rlimit(rlim_cur: 0, rlim_max: inheritedCoreLimit?.rlim_max ?? 0)
        _ = setrlimit(Int32(RLIMIT_CORE.rawValue), &none)
        setNotDumpable()
        holdClosedStandardDescriptors()
        unblockSignals()
        // After recordInheritedState: restoreForExec gives a command the default action back.
        _ = signal(SIGPIPE, SIG_IGN)
    }

    /// What the process was given before ``apply()`` changed it: the core-file limit, the
    /// signals it was started ignoring and its open descriptors. Written
    /// once, at start, before any other thread runs.
    nonisolated(unsafe) private static var inheritedCoreLimit: rlimit?
    nonisolated(unsafe) private static var inheritedIgnored: Set<Int32> = []
    /// Each inherited descriptor with what it refers to: a number alone is not enough, since
    /// a descriptor some library opened and closed while the list was read can come back
    /// under that number for an event loop of vault's own.
    nonisolated(unsafe) private static var inheritedDescriptors: [Int32: DescriptorIdentity]?

    /// The signals ``restoreForExec()`` looks at (the classic ones; real-time signals are
    /// not touched by vault).
    private static let classicSignals = Int32(1)...Int32(31)

    private static func recordInheritedState() {
        inheritedDescriptors = openDescriptors().map { open in
            Dictionary(uniqueKeysWithValues: open.compactMap { fd in DescriptorIdentity(of: fd).map { (fd, $0) } })
        }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_CORE.rawValue), &limit) == 0 { inheritedCoreLimit = limit }
        for signalNumber in classicSignals where signalNumber != SIGKILL && signalNumber != SIGSTOP {
            var action = sigaction()
            if sigaction(signalNumber, nil, &action) == 0, isIgnored(action) {
                inheritedIgnored.insert(signalNumber)
            }
        }
    }

    /// The descriptors open in this process (`/proc/self/fd`), or nil when it cannot be read.
    private static func openDescriptors() -> Set<Int32>? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        let own = dirfd(directory)
        var found: Set<Int32> = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let fd = Int32(name), fd != own { found.insert(fd) }
        }
        return found
    }

    /// Undoes what vault changed in the state `execve` passes on, so a command that replaces
    /// vault (`vault exec`) starts as it would from the shell: the core-file limit vault was
    /// given, an empty signal mask (as vault's own, see ``apply()``: a mask inherited from a
    /// parent's thread-pool worker would leave the command deaf to `kill`; the calling
    /// thread's mask survives `exec`), the default
    /// action for every signal vault ignores but was not started ignoring (a signal the
    /// parent ignores, as `nohup` does, stays ignored), and no descriptor vault opened
    /// (its libraries' event loops and connections are marked close-on-exec; descriptors
    /// vault was given stay open). Handlers need nothing: `exec` resets them. The process
    /// stays not dumpable until `exec` resets that too.
    package static func restoreForExec() {
        if let inherited = inheritedDescriptors, let now = openDescriptors() {
            for fd in now where fd > 2 && inherited[fd] != DescriptorIdentity(of: fd) {
                let flags = fcntl(fd, F_GETFD)
                if flags >= 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
            }
        }
        if var limit = inheritedCoreLimit { _ = setrlimit(Int32(RLIMIT_CORE.rawValue), &limit) }
        for signalNumber in classicSignals where signalNumber != SIGKILL && signalNumber != SIGSTOP {
            var action = sigaction()
            guard sigaction(signalNumber, nil, &action) == 0, isIgnored(action),
                !inheritedIgnored.contains(signalNumber)
            else { continue }
            _ = signal(signalNumber, SIG_DFL)
        }
        var none = sigset_t()
        sigemptyset(&none)
        _ = pthread_sigmask(SIG_SETMASK, &none, nil)
    }

    /// What a descriptor refers to: its device and inode (an epoll or a pipe has its own).
    private struct DescriptorIdentity: Equatable {
        let device: UInt64
        let inode: UInt64

        init?(of fd: Int32) {
            var status = stat()
            guard fstat(fd, &status) == 0 else { return nil }
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
        }
    }

    /// Whether `action` is `SIG_IGN` (the handler value 1; C's function-pointer constants do
    /// not compare in Swift).
    private static func isIgnored(_ action: sigaction) -> Bool {
        unsafeBitCast(action.__sigaction_handler, to: Int.self) == 1
    }

    /// Empties the signal mask inherited through `exec` (dispositions are left alone: a
    /// signal the parent ignores, as `nohup` does, stays ignored).
    private static func unblockSignals() {
        var none = sigset_t()
        sigemptyset(&none)
        _ = sigprocmask(SIG_SETMASK, &none, nil)
    }

    /// Opens `/dev/null` read-only onto each of 0, 1 and 2 that is closed.
    private static func holdClosedStandardDescriptors() {
        for descriptor in Int32(0)...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            let held = open("/dev/null", O_RDONLY)
            if held >= 0 && held != descriptor {
                _ = dup2(held, descriptor)
                close(held)
            }
        }
    }

    /// `prctl(PR_SET_DUMPABLE, 0)` (CLinuxSystem: Swift cannot call the variadic C function).
    private static func setNotDumpable() { _ = vault_set_not_dumpable() }
}
