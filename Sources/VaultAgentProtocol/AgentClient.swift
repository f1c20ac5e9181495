// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Why asking the agent did not give an answer; the caller then does the work itself.
public enum AgentClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing listens there (no socket, or a socket nobody serves).
    case noAgent
    /// The process at the socket runs as another user: never trusted.
    case otherUser(UInt32)
    /// No whole answer within the deadline.
    case timedOut
    /// The answer broke the wire format.
    case malformed
    /// The agent closed the connection before a byte of the answer (it stopped, or it
    /// closed the connections still open when its drain ended).
    case hungUp
    /// Another system error (`errno`'s text).
    case system(String)

    public var description: String {
        switch self {
        case .noAgent: "no agent is running"
        case .otherUser(let uid): "the socket's process runs as uid \(uid), not as this user; not used"
        case .timedOut: "the agent did not answer in time"
        case .malformed: "the agent's answer was malformed"
        case .hungUp: "the agent closed the connection without an answer"
        case .system(let text): "the agent could not be reached (\(text))"
        }
    }
}

/// Asks `vault agent` one question over its Unix socket, blocking, with a deadline: no
/// Foundation and no event loop, so the short-lived `vault` asks it at the cost of a
/// socket round trip. The agent must run as this process's user (`SO_PEERCRED`).
public enum AgentClient {
    /// The answer to `request` from the agent at `socketPath`, within `timeout` (each read
    /// and write is bounded by it; the whole exchange by about twice it).
    public static func ask(_ request: AgentRequest, socketPath: String, timeout: Duration) -> Result<AgentAnswer, AgentClientError> {
        guard !socketPath.isEmpty, socketPath.utf8.count <= AgentSocketPath.maximumLength else { return .failure(.noAgent) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(.system(String(cString: strerror(errno)))) }
        defer { close(fd) }
        setTimeouts(fd, timeout)
        switch connect(fd, to: socketPath) {
        case 0: break
        case ENOENT, ECONNREFUSED, ENOTDIR, ENOTSOCK: return .failure(.noAgent)
        case EAGAIN, EWOULDBLOCK, EINPROGRESS: return .failure(.timedOut)
        case let code: return .failure(.system(String(cString: strerror(code))))
        }
        if let owner = peerUID(fd), owner != getuid() { return .failure(.otherUser(owner)) }
        if peerUID(fd) == nil { return .failure(.system("the peer's credentials cannot be read")) }
        if let failure = writeAll(fd, AgentFrame.framed(request.encoded())) { return .failure(failure) }
        let header: [UInt8]
        switch readExactly(fd, 4) {
        case .success(let bytes): header = bytes
        case .failure(let failure): return .failure(failure)
        }
        guard let length = AgentFrame.announcedLength(header), length <= AgentFrame.maximumAnswer else { return .failure(.malformed) }
        switch readExactly(fd, length) {
        case .success(let payload):
            guard let answer = AgentAnswer.decode(payload) else { return .failure(.malformed) }
            return .success(answer)
        case .failure(let failure): return .failure(failure)
        }
    }

    /// `connect(2)` to the Unix socket at `path`: 0, or the errno.
    private static func connect(_ fd: Int32, to path: String) -> Int32 {
        guard let address = UnixSocketAddress(path: path) else { return ENAMETOOLONG }
        return address.withSocketAddress { Glibc.connect(fd, $0, $1) } == 0 ? 0 : errno
    }

    /// The uid of the process at the other end of `fd` (`SO_PEERCRED`).
    public static func peerUID(_ fd: Int32) -> UInt32? {
        // `struct ucred` (pid, uid, gid: three 32-bit fields), which Glibc's module leaves
        // out (it needs _GNU_SOURCE).
        var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
        var size = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0, size == 12 else { return nil }
        return credentials.1
    }

    private static func setTimeouts(_ fd: Int32, _ timeout: Duration) {
        let (seconds, attoseconds) = timeout.components
        var value = timeval(tv_sec: Int(max(0, seconds)), tv_usec: Int(max(0, attoseconds) / 1_000_000_000_000))
        if value.tv_sec == 0, value.tv_usec == 0 { value.tv_usec = 1000 }
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> AgentClientError? {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if written > 0 {
                offset += written
            } else if written < 0, errno == EINTR {
                continue
            } else {
                return written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? .timedOut : .noAgent
            }
        }
        return nil
    }

    private static func readExactly(_ fd: Int32, _ count: Int) -> Result<[UInt8], AgentClientError> {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let got = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + offset, count - offset, 0) }
            if got > 0 {
                offset += got
            } else if got == 0 {
                // End of file: before the first byte of the answer, a hang-up; within it, a cut answer.
                return .failure(offset == 0 && count == 4 ? .hungUp : .malformed)
            } else if errno == EINTR {
                continue
            } else {
                return .failure(errno == EAGAIN || errno == EWOULDBLOCK ? .timedOut : .system(String(cString: strerror(errno))))
            }
        }
        return .success(bytes)
    }
}
