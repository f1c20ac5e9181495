import Foundation

/// An HTTP request as VaultAuth sends it: small, `Sendable`, transport-neutral.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: URL
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?

    public init(method: String = "GET", url: URL, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// This request with header `name` set to `value` (replacing any other value).
    public func setting(_ name: String, to value: String?) -> HTTPRequest {
        var copy = self
        copy.headers.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
        if let value { copy.headers.append((name, value)) }
        return copy
    }
}

/// An HTTP response with its whole body (bounded by the transport's size limit).
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    public var isSuccess: Bool { (200..<300).contains(status) }
}

/// Sends one HTTP request and returns the response; the only way VaultAuth reaches the
/// network, so a test can put a fake one in its place to pin down a state machine.
///
/// Contract: any status is a response, not an error; failures to connect, timeouts and
/// oversized bodies throw `AuthError.network`; a URL that policy forbids throws
/// `AuthError.invalidRequest`. Redirects are followed only within the same origin
/// with `Authorization`; a cross-origin redirect drops it.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest, timeout: Duration) async throws(AuthError) -> HTTPResponse
}
