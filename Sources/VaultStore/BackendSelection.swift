// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// Which store a program should use, and why.
public enum BackendKind: String, Sendable, CaseIterable {
    /// Choose at run time: the Secret Service when it answers, else the encrypted file.
    case auto
    /// The Secret Service over D-Bus (GNOME Keyring, KeePassXC) through libsecret.
    case secretService = "secret-service"
    /// The encrypted vault file.
    case file

    /// The backend of this kind (nil for `auto`, which is a choice among them).
    public var backend: (any StoreBackend.Type)? {
        switch self {
        case .auto: nil
        case .secretService: SecretServiceBackend.self
        case .file: EncryptedFileBackend.self
        }
    }
}

/// The outcome of backend selection: the backend that will be used and a one-line reason.
public struct BackendDecision: Sendable, Equatable, CustomStringConvertible {
    /// The chosen backend's kind (never `auto`).
    public var kind: BackendKind
    /// One line saying why: `forced by --backend or VAULT_BACKEND`, or `auto: …` followed by the chosen
    /// backend's ``Viability/reason`` or, when earlier backends could not run, their reasons joined by `; `.
    public var reason: String
    /// What the chosen backend answered when `auto` asked it (nil when it was forced), so
    /// opening it need not ask again.
    public var viability: Viability?

    /// Creates a decision; normally made by ``BackendSelection/decide(requested:environment:probeTimeout:)``.
    public init(kind: BackendKind, reason: String, viability: Viability? = nil) {
        self.kind = kind
        self.reason = reason
        self.viability = viability
    }

    /// `KIND: REASON`, e.g. `file: auto: DBUS_SESSION_BUS_ADDRESS is not set`.
    public var description: String { "\(kind.rawValue): \(reason)" }

    /// Opens the chosen backend's store.
    public func open(_ context: BackendContext) throws(VaultError) -> any SecureStore {
        guard let backend = kind.backend else { throw .invalidInput("no backend was chosen") }
        return try backend.open(context, viability: viability)
    }
}

/// Decides between the backends. It never triggers D-Bus autolaunch and never hangs.
public enum BackendSelection {
    /// The environment variable that forces a backend (`auto`, `secret-service`, `file`).
    public static let environmentVariable = "VAULT_BACKEND"

    /// Resolves `requested` (or `$VAULT_BACKEND`, else `auto`) into a concrete backend.
    ///
    /// `auto` asks each backend of ``automaticOrder`` whether it can run here: the Secret
    /// Service only when `DBUS_SESSION_BUS_ADDRESS` is set in `environment` and
    /// `org.freedesktop.secrets` answers on that bus within `probeTimeout` (see
    /// `SecretServiceProbe`); otherwise the encrypted file, with the Secret Service's
    /// reason ("DBUS_SESSION_BUS_ADDRESS is not set", "no answer from the session bus at …",
    /// "no Secret Service on the session bus"). With the variable unset nothing
    /// of GLib or libsecret is called, so D-Bus autolaunch can never happen. A forced
    /// backend is returned as is, without probing.
    public static func decide(
        requested: BackendKind?, environment: [String: String],
        probeTimeout: Duration = SecretServiceProbe.defaultTimeout
    ) throws(VaultError) -> BackendDecision {
        let kind: BackendKind
        if let requested {
            kind = requested
        } else if let raw = environment[environmentVariable], !raw.isEmpty {
            guard let parsed = BackendKind(rawValue: raw) else {
                throw .invalidInput("\(environmentVariable)=\(raw) is not one of auto, secret-service, file")
            }
            kind = parsed
        } else {
            kind = .auto
        }
        if let backend = kind.backend {
            return BackendDecision(kind: backend.kind, reason: "forced by --backend or \(environmentVariable)")
        }
        var reasons: [String] = []
        for backend in automaticOrder {
            let viability = backend.viability(environment: environment, probeTimeout: probeTimeout)
            if viability.usable {
                // Choosing a later backend is explained by why the earlier ones could not run.
                let why = reasons.isEmpty ? viability.reason : reasons.joined(separator: "; ")
                return BackendDecision(kind: backend.kind, reason: "auto: \(why)", viability: viability)
            }
            reasons.append(viability.reason)
        }
        throw .backendUnavailable("no backend can run here: \(reasons.joined(separator: "; "))")
    }

    /// The backends `auto` asks, best first; the first that can run here is used. The
    /// encrypted file can always run, so it comes last.
    public static let automaticOrder: [any StoreBackend.Type] = [SecretServiceBackend.self, EncryptedFileBackend.self]
}
