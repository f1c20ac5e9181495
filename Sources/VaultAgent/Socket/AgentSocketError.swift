// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultAgentProtocol

/// Why `vault agent` cannot listen: each is one line naming the path (the command reports
/// it as "unavailable or unsafe").
public enum AgentSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The socket path does not fit a Unix socket address (`sun_path`).
    case pathTooLong(String)
    /// The socket's directory is not this user's alone (another owner, group or other bits,
    /// not a directory); `reason` says which.
    case unsafeDirectory(String, reason: String)
    /// An agent already answers at the path.
    case alreadyRunning(String)
    /// Something that is not a stale socket of this user is at the path.
    case occupied(String, reason: String)
    /// A system call failed (`errno`'s text).
    case system(String, call: String, reason: String)

    public var description: String {
        switch self {
        case .pathTooLong(let path): "the socket path \(path) is longer than \(AgentSocketPath.maximumLength) bytes"
        case .unsafeDirectory(let path, let reason): "the socket directory \(path) is not safe: \(reason)"
        case .alreadyRunning(let path): "an agent already runs at \(path)"
        case .occupied(let path, let reason): "\(path) cannot be used: \(reason)"
        case .system(let path, let call, let reason): "\(path): \(call) failed: \(reason)"
        }
    }
}
