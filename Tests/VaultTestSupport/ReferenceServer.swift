// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation

/// A reference auth server running in this test process.
public struct RunningReferenceServer: Sendable {
    public let server: ReferenceAuthServer
    /// The port it listens on (chosen by the system for port 0).
    public let port: Int
    /// `http://127.0.0.1:PORT`.
    public var url: String { "http://127.0.0.1:\(port)" }
}

/// Starts `ReferenceAuthServer` in this process (by default on 127.0.0.1, port 0: a port
/// the system chooses), runs `body`, and stops the server before returning, also when
/// `body` throws.
public func withReferenceServer<T>(
    _ configuration: AuthServerConfiguration = AuthServerConfiguration(),
    _ body: (RunningReferenceServer) async throws -> T
) async throws -> T {
    let server = try ReferenceAuthServer(configuration: configuration)
    let port = try await server.start()
    let result: Result<T, any Error>
    do {
        result = .success(try await body(RunningReferenceServer(server: server, port: port)))
    } catch {
        result = .failure(error)
    }
    await server.stop()
    return try result.get()
}
