// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// The headless recipe's files (docs/headless-secret-service.md): the systemd user unit and
/// the D-Bus activation file, as Scripts/install-units installs them; the activation file
/// really starts vault's provider on a bus that reads it.
@Suite("vault's Secret Service provider, installed", .offThePool) struct SecretServiceProviderPackagingTests {
    static let installUnits = ProviderFixture.root + "/Scripts/install-units"

    @Test("install-units installs the unit and the activation file with the prefix; systemd-analyze verify passes")
    func installed() async throws {
        try await withTemporaryDirectory("vault-ss-units") { directory in
            let installed = try await ChildProcess.runAsync(
                Self.installUnits, [directory + "/prefix", "/opt/vault"], environment: ["PATH": "/usr/bin:/bin"])
            #expect(installed.status == 0, "\(installed.err)")
            let unit = try String(contentsOfFile: directory + "/prefix/lib/systemd/user/vault-secret-service.service", encoding: .utf8)
            #expect(unit.contains("\nExecStart=/opt/vault/bin/vault agent --secret-service\n"), "\(unit)")
            #expect(unit.contains("\nType=dbus\n") && unit.contains("\nBusName=org.freedesktop.secrets\n"))
            let activation = try String(
                contentsOfFile: directory + "/prefix/share/dbus-1/services/org.freedesktop.secrets.service", encoding: .utf8)
            #expect(
                activation.contains("\nName=org.freedesktop.secrets\n") && activation.contains("\nExec=/opt/vault/bin/vault agent --secret-service\n")
            )
            #expect(activation.contains("\nSystemdService=vault-secret-service.service\n"))
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") else { return }
            let bin = directory + "/local/bin"
            try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: "/bin/true", toPath: bin + "/vault")
            let local = try await ChildProcess.runAsync(Self.installUnits, [directory + "/local"], environment: ["PATH": "/usr/bin:/bin"])
            #expect(local.status == 0, "\(local.err)")
            try FileManager.default.createDirectory(atPath: directory + "/run", withIntermediateDirectories: true)
            let verified = try await ChildProcess.runAsync(
                "/usr/bin/systemd-analyze",
                ["--user", "--man=no", "verify", directory + "/local/lib/systemd/user/vault-secret-service.service"],
                environment: ["PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": directory + "/run"])
            #expect(verified.status == 0, "\(verified.out) \(verified.err)")
        }
    }

    @Test("the installed activation file starts vault agent --secret-service on the first client call")
    func activation() async throws {
        try await withTemporaryDirectory("vault-ss-activation") { directory in
            // The prefix's bin is the build directory (vault finds vault-auth beside itself).
            let prefix = directory + "/prefix"
            try FileManager.default.createDirectory(atPath: prefix, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: prefix + "/bin", withDestinationPath: GitFixture.buildDirectory)
            let installed = try await ChildProcess.runAsync(Self.installUnits, [prefix], environment: ["PATH": "/usr/bin:/bin"])
            #expect(installed.status == 0, "\(installed.err)")
            for sub in ["vault", "run", "home"] {
                try FileManager.default.createDirectory(
                    atPath: directory + "/" + sub, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            _ = FileManager.default.createFile(
                atPath: directory + "/passphrase", contents: Data("activation passphrase 2b7e\n".utf8), attributes: [.posixPermissions: 0o600])
            let configuration = PrivateSessionBus.configuration(
                socket: directory + "/bus", serviceDirectory: prefix + "/share/dbus-1/services")
            try configuration.write(toFile: directory + "/bus.conf", atomically: true, encoding: .utf8)
            // The activated provider inherits the bus's environment: the file backend's settings.
            var environment = VaultProcess.baseEnvironment(home: directory + "/home")
            environment["VAULT_BACKEND"] = "file"
            environment["VAULT_FILE"] = directory + "/vault/vault.db"
            environment["VAULT_PASSPHRASE_FILE"] = directory + "/passphrase"
            environment["XDG_RUNTIME_DIR"] = directory + "/run"
            environment["VAULT_AGENT_SOCKET"] = directory + "/run/agent.sock"
            environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
            let script = """
                printf %s activated-secret-41 | secret-tool store --label=activated user ann server act.example.org
                secret-tool lookup user ann server act.example.org
                gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \\
                    --method org.freedesktop.DBus.GetConnectionUnixProcessID org.freedesktop.secrets |
                    sed -n 's/^(uint32 \\([0-9]*\\),)$/\\1/p' >"$1/provider.pid"
                kill "$(cat "$1/provider.pid")"
                """
            let run = try await ChildProcess.runAsync(
                "/usr/bin/dbus-run-session", ["--config-file=\(directory)/bus.conf", "--", "/bin/sh", "-c", script, "sh", directory],
                environment: environment, timeout: 180)
            #expect(run.status == 0 && run.out == "activated-secret-41", "\(run.status) \(run.out)\n\(run.err)")
            let pid = (try? String(contentsOfFile: directory + "/provider.pid", encoding: .utf8)) ?? ""
            #expect(!pid.isEmpty, "no owner of org.freedesktop.secrets: \(run.err)")
            // The item is in the vault file, encrypted.
            let bytes = try Data(contentsOf: URL(fileURLWithPath: directory + "/vault/vault.db"))
            #expect(bytes.range(of: Data("activated-secret-41".utf8)) == nil && bytes.range(of: Data("act.example.org".utf8)) == nil)
        }
    }
}
