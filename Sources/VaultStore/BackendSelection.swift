/// Which store a program should use, and why.
public enum BackendKind: String, Sendable, CaseIterable {
    /// Choose at run time: the Secret Service when it answers, else the encrypted file.
    case auto
    /// The Secret Service over D-Bus (GNOME Keyring, KeePassXC) through libsecret.
    case secretService = "secret-service"
    /// The encrypted vault file.
    case file
}

/// The outcome of backend selection: the backend that will be used and a one-line reason.
public struct BackendDecision: Sendable, Equatable, CustomStringConvertible {
    public var kind: BackendKind
    public var reason: String
    /// True when choosing already saw the Secret Service answer, so opening the store
    /// need not ask again.
    public var serviceAnswered: Bool

    public init(kind: BackendKind, reason: String, serviceAnswered: Bool = false) {
        self.kind = kind
        self.reason = reason
        self.serviceAnswered = serviceAnswered
    }

    public var description: String { "\(kind.rawValue): \(reason)" }
}

/// Decides between the backends. It never triggers D-Bus autolaunch and never hangs.
public enum BackendSelection {
    /// The environment variable that forces a backend (`auto`, `secret-service`, `file`).
    public static let environmentVariable = "VAULT_BACKEND"

    /// Resolves `requested` (or `$VAULT_BACKEND`, else `auto`) into a concrete backend.
    ///
    /// `auto` chooses the Secret Service only when `DBUS_SESSION_BUS_ADDRESS` is set in
    /// `environment` and `org.freedesktop.secrets` answers on that bus within
    /// `probeTimeout` (see `SecretServiceProbe`); otherwise the encrypted file, with the
    /// reason ("DBUS_SESSION_BUS_ADDRESS is not set", "the session bus at … does not
    /// answer", "no Secret Service on the session bus"). With the variable unset nothing
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
        switch kind {
        case .file:
            return BackendDecision(kind: .file, reason: "forced by --backend or \(environmentVariable)")
        case .secretService:
            return BackendDecision(kind: .secretService, reason: "forced by --backend or \(environmentVariable)")
        case .auto:
            let probe = SecretServiceProbe.probe(environment: environment, timeout: probeTimeout)
            let milliseconds = Double(probe.elapsed.components.attoseconds) / 1e15
                + Double(probe.elapsed.components.seconds) * 1000
            let took = "probe \((milliseconds * 10).rounded() / 10) ms"
            if probe.available {
                return BackendDecision(kind: .secretService, reason: "auto: \(probe.reason) (\(took))", serviceAnswered: true)
            }
            return BackendDecision(kind: .file, reason: "auto: \(probe.reason) (\(took))")
        }
    }
}
