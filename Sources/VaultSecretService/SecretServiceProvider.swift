// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Logging
import VaultStore

/// The Secret Service (`org.freedesktop.secrets` on the user's session bus) served from a
/// ``SecretServiceBacking``. (Placeholder API: helper H3 writes the provider behind it.)
public final class SecretServiceProvider: Sendable {
    /// Why the provider could not start.
    public enum StartError: Error, Equatable, Sendable, CustomStringConvertible {
        /// No session bus to connect to (the reason, one line).
        case noSessionBus(String)
        /// Someone else holds `org.freedesktop.secrets`: who (`pid 812 (gnome-keyring-d)`,
        /// or the unique name when the bus does not say).
        case nameTaken(owner: String)

        public var description: String {
            switch self {
            case .noSessionBus(let why): "no session bus: \(why)"
            case .nameTaken(let owner): "org.freedesktop.secrets is already served on this bus by \(owner)"
            }
        }
    }

    let backing: any SecretServiceBacking
    let logger: Logger
    let busAddress: String?

    /// A provider for `backing`, on the bus at `busAddress` (nil: `DBUS_SESSION_BUS_ADDRESS`).
    public init(backing: any SecretServiceBacking, logger: Logger, busAddress: String? = nil) {
        self.backing = backing
        self.logger = logger
        self.busAddress = busAddress
    }

    /// Connects, exports the objects and claims `org.freedesktop.secrets` (never queued
    /// behind its owner); returns once clients can call.
    public func start() async throws(StartError) {
        throw .noSessionBus("the provider is not written yet")
    }

    /// Releases the name, ends the sessions, closes the connection.
    public func stop() async {}
}
