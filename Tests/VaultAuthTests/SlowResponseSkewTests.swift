// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

@testable import VaultAuth

/// A response that arrives late must never make an expired token look valid: the skew
/// estimate only ever moves expiries earlier.
@Suite(.offThePool) struct SlowResponseSkewTests {
    let header = "Sun, 22 Nov 2026 03:00:00 GMT"
    var serverTime: Date { HTTPDate.parse(header)! }

    @Test func aSlowResponseFromAnInSyncServerIsNoSkew() {
        // sent at the server's second, answered 3 s later (a loaded machine)
        let skew = ClockSkew.measure(dateHeader: header, sentAt: serverTime, receivedAt: serverTime.addingTimeInterval(3))
        #expect(skew == .none)
    }

    @Test func estimatesNeverMakeExpiriesLater() {
        for trueOffset in [-600.0, -5, -2, 0, 2, 5, 600] {
            for delay in [0.0, 0.3, 2.5] {
                // The server stamps its Date at local time `sent + delay / 2`.
                let sent = serverTime.addingTimeInterval(-trueOffset - delay / 2 + 0.2)
                let stamp = Date(timeIntervalSince1970: (sent.addingTimeInterval(delay / 2 + trueOffset).timeIntervalSince1970).rounded(.down))
                let date = HTTPDateFormatting.imfFixdate(stamp)
                let skew = ClockSkew.measure(dateHeader: date, sentAt: sent, receivedAt: sent.addingTimeInterval(delay))
                let serverExpiry = stamp.addingTimeInterval(60)
                let trueLocalExpiry = serverExpiry.addingTimeInterval(-trueOffset)
                #expect(
                    skew.local(serverExpiry) <= trueLocalExpiry.addingTimeInterval(0.001),
                    "offset \(trueOffset), delay \(delay): estimated \(skew.offset)")
                #expect(skew.local(serverExpiry) >= trueLocalExpiry.addingTimeInterval(-(delay + 2.6)))
            }
        }
    }

    @Test func parsesAndRejectsDates() {
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        #expect(HTTPDate.parse("Tue, 29 Feb 2028 23:59:59 GMT") == Date(timeIntervalSince1970: 1_835_481_599))
        #expect(HTTPDate.parse("Tue, 29 Feb 2028 24:00:00 GMT") == nil)
        #expect(HTTPDate.parse("Tue, 29 Foo 2028 23:00:00 GMT") == nil)
        #expect(HTTPDate.parse("Tue, 29 Feb 2028 23:00:00 CET") == nil)
    }
}

/// Formats a date as an IMF-fixdate, for tests.
enum HTTPDateFormatting {
    static func imfFixdate(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return String(
            format: "%@, %02d %@ %04d %02d:%02d:%02d GMT", days[c.weekday! - 1], c.day!, months[c.month! - 1], c.year!, c.hour!, c.minute!, c.second!)
    }
}
