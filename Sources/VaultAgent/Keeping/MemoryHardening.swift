// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import CLinuxSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Keeps the agent's keys and tokens out of swap, core files and other processes' reach.
enum MemoryHardening {
    /// The smallest `RLIMIT_MEMLOCK` under which all memory is locked: below it a growing
    /// heap would make allocations fail, which is worse than memory that may be swapped.
    static let minimumLockLimit: UInt64 = 1 << 30

    /// What ``apply()`` did, for the log: nil when memory is locked, else why it is not.
    struct Outcome: Sendable, Equatable {
        var memoryNotLockedBecause: String?
        var dumpable: Bool
    }

    /// Makes the process not dumpable (`prctl(PR_SET_DUMPABLE, 0)`: no core file, no
    /// `ptrace` or `/proc/PID/mem` by other processes of the user), and locks its memory
    /// (`mlockall(MCL_CURRENT|MCL_FUTURE)`) only when `RLIMIT_MEMLOCK` is unlimited or at
    /// least ``minimumLockLimit``.
    static func apply() -> Outcome {
        let dumpable = !setNotDumpable()
        var limit = rlimit()
        guard getrlimit(Int32(__RLIMIT_MEMLOCK.rawValue), &limit) == 0 else {
            return Outcome(memoryNotLockedBecause: "RLIMIT_MEMLOCK cannot be read", dumpable: dumpable)
        }
        let current = UInt64(limit.rlim_cur)
        guard limit.rlim_cur == rlim_t.max || current >= minimumLockLimit else {
            return Outcome(
                memoryNotLockedBecause: "RLIMIT_MEMLOCK is \(current / 1024) KiB, below the 1 GiB it needs (LimitMEMLOCK=infinity)",
                dumpable: dumpable)
        }
        guard mlockall(Int32(MCL_CURRENT | MCL_FUTURE)) == 0 else {
            return Outcome(memoryNotLockedBecause: "mlockall failed: \(String(cString: strerror(errno)))", dumpable: dumpable)
        }
        return Outcome(memoryNotLockedBecause: nil, dumpable: dumpable)
    }

    /// `prctl(PR_SET_DUMPABLE, 0)`; true when it took.
    private static func setNotDumpable() -> Bool { vault_set_not_dumpable() == 0 }
}
