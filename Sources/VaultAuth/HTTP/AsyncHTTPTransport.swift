import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// `HTTPTransport` on AsyncHTTPClient.
///
/// - Refuses plain http except to loopback (`URLPolicy`), for the first URL and for every
///   redirect target.
/// - Follows at most 5 redirects itself (the client's own redirect handling is off), and
///   drops `Authorization` and `Cookie` when a redirect leaves the origin.
/// - Reads at most `maximumBodySize` bytes of a response body; more is a network error.
public final class AsyncHTTPTransport: HTTPTransport {
    private let client: HTTPClient
    private let ownsClient: Bool
    public let maximumBodySize: Int
    public static let maximumRedirects = 5

    /// Uses `client` (whose redirect configuration should be `.disallow`), or makes one
    /// on the shared event loop group; call `shutdown()` when done with a made one.
    public init(client: HTTPClient? = nil, maximumBodySize: Int = 16 << 20) {
        if let client {
            self.client = client
            self.ownsClient = false
        } else {
            var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
            configuration.httpVersion = .http1Only
            self.client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            self.ownsClient = true
        }
        self.maximumBodySize = maximumBodySize
    }

    /// Shuts the client down if this transport made it.
    public func shutdown() async {
        if ownsClient { try? await client.shutdown() }
    }

    public func send(_ request: HTTPRequest, timeout: Duration) async throws(AuthError) -> HTTPResponse {
        var current = request
        for _ in 0...Self.maximumRedirects {
            try URLPolicy.check(current.url)
            let response = try await sendOnce(current, timeout: timeout)
            guard [301, 302, 303, 307, 308].contains(response.status), let location = response.header("Location"),
                let target = URL(string: location, relativeTo: current.url)?.absoluteURL
            else { return response }
            current = Self.redirected(current, to: target, status: response.status)
        }
        throw .network("more than \(Self.maximumRedirects) redirects")
    }

    /// The request to send after a redirect: the method becomes GET for 303 (and for 301
    /// and 302 after a POST); credentials are dropped when the origin changes.
    static func redirected(_ request: HTTPRequest, to target: URL, status: Int) -> HTTPRequest {
        var next = request
        next.url = target
        if status == 303 || ((status == 301 || status == 302) && request.method == "POST") {
            next.method = "GET"
            next.body = nil
            next = next.setting("Content-Type", to: nil)
        }
        if !URLPolicy.sameOrigin(request.url, target) {
            next = next.setting("Authorization", to: nil).setting("Cookie", to: nil)
        }
        return next
    }

    private func sendOnce(_ request: HTTPRequest, timeout: Duration) async throws(AuthError) -> HTTPResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for header in request.headers { outgoing.headers.add(name: header.name, value: header.value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let (seconds, attoseconds) = timeout.components
        let amount = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        do {
            let response = try await client.execute(outgoing, timeout: amount)
            let body = try await response.body.collect(upTo: maximumBodySize)
            return HTTPResponse(
                status: Int(response.status.code),
                headers: response.headers.map { ($0.name, $0.value) },
                body: Array(buffer: body))
        } catch is NIOTooManyBytesError {
            throw .network("the response from \(request.url.host ?? "the server") is larger than \(maximumBodySize) bytes")
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw .network("\(request.url.host ?? "the server") did not answer within \(timeout)")
        } catch {
            throw .network("\(request.method) \(URLPolicy.redacted(request.url)): \(error)")
        }
    }
}
