// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultSync

/// Which store a program should use, and why.
public enum BackendKind: String, Sendable, CaseIterable {
    /// Choose at run time: the Secret Service when it answers, else the encrypted file.
    case auto
    /// The Secret Service over D-Bus (GNOME Keyring, KeePassXC) through libsecret.
    case secretService = "secret-service"
    /// The encrypted vault file.
    case file
    /// A fleet's shared store on etcd (the VaultEtcd module; never chosen by `auto`).
    case etcd

    /// The backend of this kind (nil for `auto`, which is a choice among them, and for a
    /// backend of another module that this program has not registered).
    public var backend: (any StoreBackend.Type)? {
        switch self {
        case .auto: nil
        case .secretService: SecretServiceBackend.self
        case .file: EncryptedFileBackend.self
        case .etcd: BackendRegistry.registered(.etcd)
        }
    }
}

/// The backends that live in modules of their own (etcd, with its networking), as the
/// program that links them registers them at start (`BackendRegistry.register(EtcdBackend.self)`).
/// The `vault` executable links none of them and hands such commands to `vault-auth`.
public enum BackendRegistry {
    private static let backends = Locked<[BackendKind: any StoreBackend.Type]>([:])

    /// Makes `backend` the one of its kind.
    public static func register(_ backend: any StoreBackend.Type) {
        backends.withLock { $0[backend.kind] = backend }
    }

    /// The registered backend of `kind`, or nil.
    public static func registered(_ kind: BackendKind) -> (any StoreBackend.Type)? {
        backends.withLock { $0[kind] }
    }
}

/// The outcome of backend selection: the backend that will be used and a one-line reason.
public struct BackendDecision: Sendable, Equatable, CustomStringConvertible {
    /// The chosen backend's kind (never `auto`).
    public var kind: BackendKind
    /// One line saying why: `forced` (``forced``), or `auto: …` followed by the chosen
    /// backend's ``Viability/reason`` or, when earlier backends could not run, their reasons joined by `; `.
    public var reason: String
    /// True when the caller asked for this backend (no choice was made): a program says
    /// how (`vault`: `--backend` or `VAULT_BACKEND`).
    public var forced: Bool
    /// The ``reason`` of a forced backend.
    public static let forcedReason = "forced"
    /// What the chosen backend answered when `auto` asked it (nil when it was forced), so
    /// opening it need not ask again.
    public var viability: Viability?

    /// Creates a decision; normally made by ``BackendSelection/decide(requested:context:probeTimeout:)``.
    public init(kind: BackendKind, reason: String, viability: Viability? = nil, forced: Bool = false) {
        self.kind = kind
        self.reason = reason
        self.viability = viability
        self.forced = forced
    }

    /// `KIND: REASON`, e.g. `file: auto: DBUS_SESSION_BUS_ADDRESS is not set`.
    public var description: String { "\(kind.rawValue): \(reason)" }

    /// Opens the chosen backend's store.
    public func open(_ context: BackendContext) throws(VaultError) -> any SecureStore {
        guard let backend = kind.backend else {
            if kind == .auto { throw .invalidInput("no backend was chosen") }
            throw .backendUnavailable("the \(kind.rawValue) backend is not part of this program (vault-auth has it)")
        }
        return try backend.open(context, viability: viability)
    }
}

/// Decides between the backends. It never triggers D-Bus autolaunch and never hangs.
public enum BackendSelection {
    /// Resolves `requested` into a concrete backend.
    ///
    /// `auto` asks each backend of ``automaticOrder`` whether it can run with `context`:
    /// the Secret Service only when the context names a session bus
    /// (``StandardLocations/sessionBusAddress``) and `org.freedesktop.secrets` answers on
    /// it within `probeTimeout`, or the bus says it has an owner that is slow (see
    /// `SecretServiceProbe`); a bus that never says whether it has one throws
    /// `backendUnavailable` with the remedy ``VaultError/Remedy/chooseBackend``; otherwise the encrypted file,
    /// with the Secret Service's reason ("DBUS_SESSION_BUS_ADDRESS is not set", "no answer
    /// from the session bus at …", "no Secret Service on the session bus"). Without a bus
    /// nothing of GLib or libsecret is called, so D-Bus autolaunch can never happen. A
    /// forced backend is returned as is, without probing (``BackendDecision/forced``).
    public static func decide(
        requested: BackendKind = .auto, context: BackendContext, probeTimeout: Duration = SecretServiceProbe.defaultTimeout
    ) throws(VaultError) -> BackendDecision {
        if requested != .auto {
            return BackendDecision(kind: requested, reason: BackendDecision.forcedReason, forced: true)
        }
        var reasons: [String] = []
        for backend in automaticOrder {
            let viability = backend.viability(context, probeTimeout: probeTimeout)
            switch viability.verdict {
            case .usable:
                // Choosing a later backend is explained by why the earlier ones could not run.
                let why = reasons.isEmpty ? viability.reason : reasons.joined(separator: "; ")
                return BackendDecision(kind: backend.kind, reason: "auto: \(why)", viability: viability)
            case .undecided:
                // In doubt, no store is chosen: acting on the wrong one would remove nothing and find nothing, and say it succeeded.
                throw VaultError.backendUnavailable("auto: \(viability.reason); vault does not guess which store holds your items")
                    .with(.chooseBackend)
            case .unusable:
                reasons.append(viability.reason)
            }
        }
        throw .backendUnavailable("no backend can run here: \(reasons.joined(separator: "; "))")
    }

    /// The backends `auto` asks, best first; the first that can run here is used. The
    /// encrypted file can always run, so it comes last.
    public static let automaticOrder: [any StoreBackend.Type] = [SecretServiceBackend.self, EncryptedFileBackend.self]
}
