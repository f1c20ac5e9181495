import Foundation

/// The wall clock VaultAuth reads. Tests inject one that is minutes ahead or behind.
public protocol AuthClock: Sendable {
    func now() -> Date
}

/// The system's wall clock.
public struct SystemClock: AuthClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// The system clock shifted by a fixed offset (for tests of a wrong local clock).
public struct ShiftedClock: AuthClock {
    public let offset: TimeInterval
    public init(offset: TimeInterval) { self.offset = offset }
    public func now() -> Date { Date().addingTimeInterval(offset) }
}

/// Converts the server's absolute times to the local clock, using the offset between
/// the response's `Date` header and the local time it arrived.
///
/// `Date` has one-second resolution, so offsets within ±1.5 s are taken as zero (the
/// clocks agree as far as can be told).
public struct ClockSkew: Sendable, Equatable {
    /// Server time minus local time, in seconds.
    public let offset: TimeInterval

    public init(offset: TimeInterval) { self.offset = offset }

    public static let none = ClockSkew(offset: 0)

    /// The skew measured from a `Date` header value received at `receivedAt` (local).
    public static func measure(dateHeader: String?, receivedAt: Date) -> ClockSkew {
        guard let dateHeader, let serverDate = HTTPDate.parse(dateHeader) else { return .none }
        let offset = serverDate.addingTimeInterval(0.5).timeIntervalSince(receivedAt)
        return abs(offset) <= 1.5 ? .none : ClockSkew(offset: offset)
    }

    /// A server timestamp on the local clock.
    public func local(_ serverTime: Date) -> Date { serverTime.addingTimeInterval(-offset) }
}

/// Parses HTTP dates (RFC 9110 IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`).
enum HTTPDate {
    static func parse(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }
}
