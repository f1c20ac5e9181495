import VaultStore

/// What can go wrong when a request is authorised, sent or refreshed. Callers branch on
/// the case; none of them carries a token or a password.
public enum AuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The credentials are no good for good: an interactive `vault login` is needed
    /// (dead refresh token and no stored password, a rejected password, `invalid_grant`).
    case authentication(String)
    /// The client is misconfigured (`invalid_client`, unknown provider settings).
    case configuration(String)
    /// The server answered with an error that is not about authentication.
    case server(status: Int, message: String)
    /// The server could not be reached or did not answer in time; nothing stored changed
    /// and trying again later may work.
    case network(String)
    /// The secure store failed.
    case store(VaultError)
    /// The request itself is unusable (a bad URL, plain http to a remote host).
    case invalidRequest(String)
    /// Rejected tokens caused more refreshes than the Requester's `RefreshWindow` allows:
    /// the resource keeps answering 401 to new tokens, so refreshing again would not help.
    case excessiveRefresh(String)

    public var description: String {
        switch self {
        case .authentication(let why): "authentication failed: \(why)"
        case .configuration(let why): "configuration error: \(why)"
        case .server(let status, let message): "server error \(status): \(message)"
        case .network(let why): "network error: \(why)"
        case .store(let error): error.description
        case .invalidRequest(let why): why
        case .excessiveRefresh(let why): "authentication failed: \(why)"
        }
    }

    /// The `vault` command's exit code: 3 authentication, 5 network or server, 2 bad
    /// input; store errors keep their own codes.
    public var exitCode: Int32 {
        switch self {
        case .authentication, .configuration, .excessiveRefresh: 3
        case .server, .network: 5
        case .store(let error): error.exitCode
        case .invalidRequest: 2
        }
    }

    /// True when retrying later may succeed (server trouble, timeouts). A success status
    /// with a body that cannot be understood (a garbled reply, a proxy's page) is server
    /// trouble too, not a verdict on the credentials.
    public var isTransient: Bool {
        switch self {
        case .network: true
        case .server(let status, _): status >= 500 || status == 429 || status == 408 || (200..<300).contains(status)
        default: false
        }
    }
}
