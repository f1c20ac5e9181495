// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation

/// A script a test writes and then runs (a stand-in `vault`, a browser), written so that it
/// can be run at once: through a descriptor that is close-on-exec, so no child another test
/// starts meanwhile keeps it open for writing after its exec. While any process holds a file
/// open for writing, the kernel refuses to execute it (ETXTBSY: `setsid` then exits 126 with
/// "Text file busy"); a child forked at the very moment of the write still holds it until its
/// own exec, so a caller that runs the script retries that refusal (``isBusyRefusal(_:)``).
public enum ScriptFile {
    /// Writes `text` to a new file at `path` with `mode` (default owner-only, executable).
    public static func write(_ text: String, to path: String, mode: mode_t = 0o700) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            written += count
        }
        // The mode as asked, whatever the umask took away.
        guard fchmod(descriptor, mode) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// True when `result` is `setsid`'s refusal to run a file that another process still held
    /// open for writing: run it again (a moment later) rather than count it.
    public static func isBusyRefusal(_ result: ProcessResult) -> Bool {
        result.status == 126 && result.err.contains("Text file busy")
    }

    /// The result of `run`, which runs a file just written or copied: a busy refusal
    /// (``isBusyRefusal(_:)``) is run again, 0.1 s later, at most `attempts` times in all;
    /// the last result is returned whatever it is. Blocks this thread: call it off the pool.
    public static func retryingBusyRefusal(attempts: Int = 50, _ run: () throws -> ProcessResult) rethrows -> ProcessResult {
        var attempt = 1
        while true {
            let result = try run()
            guard isBusyRefusal(result), attempt < attempts else { return result }
            attempt += 1
            Thread.sleep(forTimeInterval: 0.1)
        }
    }
}
