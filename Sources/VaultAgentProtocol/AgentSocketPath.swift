// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where `vault agent` listens when nothing else is said: `$XDG_RUNTIME_DIR/vault/agent.sock`,
/// or, when `XDG_RUNTIME_DIR` is unset or empty, `/tmp/vault-agent-UID/agent.sock`. The
/// directory is the user's alone (0700); the agent makes it and refuses one that is not
/// (another user's, or open to others), and a client checks the agent's uid on the socket
/// itself (``AgentClient``), so a socket planted by someone else is never trusted.
public enum AgentSocketPath {
    /// The socket's file name inside its directory.
    public static let fileName = "agent.sock"

    /// The standard socket path for `uid` given the runtime directory (`XDG_RUNTIME_DIR`).
    public static func standard(runtimeDirectory: String?, uid: UInt32 = getuid()) -> String {
        directory(runtimeDirectory: runtimeDirectory, uid: uid) + "/" + fileName
    }

    /// The directory that holds the standard socket.
    public static func directory(runtimeDirectory: String?, uid: UInt32 = getuid()) -> String {
        if let runtimeDirectory, runtimeDirectory.hasPrefix("/") { return runtimeDirectory + "/vault" }
        return "/tmp/vault-agent-\(uid)"
    }

    /// The longest path a Unix socket address holds (`sun_path` less its terminating zero).
    public static let maximumLength = 107
}
