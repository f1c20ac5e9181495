// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// The one place VaultStore takes anything from an environment: the variables that a
/// protocol outside vault defines, and nothing of vault's own (`VAULT_*` are the `vault`
/// command's business; it turns them into typed configuration such as
/// ``FileStoreConfiguration`` and ``KeyCachePolicy``).
///
/// | variable | defined by | used for |
/// | --- | --- | --- |
/// | `DBUS_SESSION_BUS_ADDRESS` | D-Bus | the session bus the Secret Service is probed on |
/// | `XDG_DATA_HOME`, `HOME` | XDG Base Directory | ``defaultVaultFile`` |
/// | `CREDENTIALS_DIRECTORY` | systemd (`LoadCredential=`) | ``PassphraseSource/Given/systemdCredential(directory:)`` |
///
/// A program passes its process environment (``init(environment:)``) or fills the fields
/// itself; the library never reads the process environment behind its caller's back.
public struct StandardLocations: Sendable, Equatable {
    /// `DBUS_SESSION_BUS_ADDRESS`, when set and not empty.
    public var sessionBusAddress: String?
    /// `XDG_DATA_HOME`, when it is an absolute path (the specification ignores others).
    public var dataHome: String?
    /// `HOME`, as given (nil when unset).
    public var home: String?
    /// `CREDENTIALS_DIRECTORY` (systemd's credentials of the service), when set and not empty.
    public var credentialsDirectory: String?

    /// Locations given field by field; nil is "not set".
    public init(sessionBusAddress: String? = nil, dataHome: String? = nil, home: String? = nil, credentialsDirectory: String? = nil) {
        self.sessionBusAddress = sessionBusAddress
        self.dataHome = dataHome
        self.home = home
        self.credentialsDirectory = credentialsDirectory
    }

    /// The locations `environment` names (normally the process's), read by the rules of the
    /// table above.
    public init(environment: [String: String]) {
        self.init(
            sessionBusAddress: environment["DBUS_SESSION_BUS_ADDRESS"].flatMap { $0.isEmpty ? nil : $0 },
            dataHome: environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil },
            home: environment["HOME"],
            credentialsDirectory: environment["CREDENTIALS_DIRECTORY"].flatMap { $0.isEmpty ? nil : $0 })
    }

    /// Where a vault file lives when nobody says otherwise:
    /// `${XDG_DATA_HOME:-$HOME/.local/share}/vault/vault.db` (`/root` without `HOME`).
    public var defaultVaultFile: String {
        if let dataHome { return "\(dataHome)/vault/vault.db" }
        return "\(home ?? "/root")/.local/share/vault/vault.db"
    }
}
