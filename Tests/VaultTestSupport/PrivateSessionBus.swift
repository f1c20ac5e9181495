// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation

/// A private D-Bus session bus (`dbus-daemon`) in a temporary directory, for tests of the
/// Secret Service provider: no service directory, so nothing is ever D-Bus-activated
/// (Debian's gnome-keyring activation file would otherwise start a keyring on the first
/// call to `org.freedesktop.secrets`). Started by ``start()``, stopped by ``stop()``.
public final class PrivateSessionBus: @unchecked Sendable {
    /// The bus address, for `DBUS_SESSION_BUS_ADDRESS`.
    public let address: String
    /// The temporary directory holding the socket and the configuration.
    public let directory: String
    private let daemon: SpawnedProcess

    private init(address: String, directory: String, daemon: SpawnedProcess) {
        self.address = address
        self.directory = directory
        self.daemon = daemon
    }

    /// A session bus's configuration listening at `socket`: no service directory unless
    /// `serviceDirectory` names one (then D-Bus activates from there only); with
    /// `everyUser`, every uid may connect (a session bus never should: for tests of a
    /// service that must refuse other uids itself).
    public static func configuration(socket: String, serviceDirectory: String? = nil, everyUser: Bool = false) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:path=\(socket)</listen>
          <auth>EXTERNAL</auth>\(serviceDirectory.map { "\n  <servicedir>\($0)</servicedir>" } ?? "")
          <policy context="default">\(everyUser ? "\n    <allow user=\"*\"/>\n    <allow receive_sender=\"*\"/>" : "")
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """
    }

    /// Starts `dbus-daemon` and waits (at most 10 s) until it prints its address.
    public static func start() throws -> PrivateSessionBus {
        let directory = try TemporaryDirectory.make(prefix: "vault-bus")
        try configuration(socket: "\(directory)/bus").write(toFile: "\(directory)/bus.conf", atomically: true, encoding: .utf8)
        let addressFile = "\(directory)/address"
        let output = open(addressFile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(output) }
        let daemon = try SpawnedProcess(
            "/usr/bin/dbus-daemon", ["--config-file=\(directory)/bus.conf", "--nofork", "--print-address=1"], environment: nil,
            stdio: [.null, .descriptor(output), .null])
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: addressFile, encoding: .utf8), text.hasSuffix("\n") {
                return PrivateSessionBus(address: text.trimmingCharacters(in: .whitespacesAndNewlines), directory: directory, daemon: daemon)
            }
            if !daemon.isRunning { break }
            usleep(20_000)
        }
        kill(daemon.processIdentifier, SIGKILL)
        daemon.waitUntilExit()
        TemporaryDirectory.remove(directory)
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "dbus-daemon printed no address within 10 s"])
    }

    /// Stops the daemon (SIGTERM, then SIGKILL after 2 s) and removes the directory.
    public func stop() {
        kill(daemon.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(2)
        while daemon.isRunning, Date() < deadline { usleep(20_000) }
        if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) }
        daemon.waitUntilExit()
        TemporaryDirectory.remove(directory)
    }
}

/// Runs `body` with a private session bus, stopped afterwards.
public func withPrivateSessionBus<T>(_ body: (PrivateSessionBus) async throws -> T) async throws -> T {
    let bus = try PrivateSessionBus.start()
    defer { bus.stop() }
    return try await body(bus)
}
