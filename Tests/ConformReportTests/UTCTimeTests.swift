import Foundation
import Testing

@testable import ConformReport

/// The reports' timestamps, written without ICU, are the text `ISO8601DateFormatter` gave for them.
@Suite struct UTCTimeTests {
    /// Times around the edges of a millisecond, a second, a day, a month, a leap day and a year, and a spread of
    /// others from 2001 to 2099 with all kinds of fractions of a second.
    static let dates: [Date] = {
        let edges: [TimeInterval] = [
            0, 0.0005, 0.0009999, 0.001, 0.9994, 0.9995, 0.9999999, 59.999, 86_399.9999, 951_782_399.9995,
            951_782_400, 1_709_164_800.0005, 1_735_689_599.999_999, 1_735_689_600, 1_798_761_599.9,
            4_102_444_799.9995,
        ]
        let spread = (0..<2_000).map { 978_307_200 + Double($0) * 1_561_868.370_931 }
        return (edges + spread).map { Date(timeIntervalSince1970: $0) }
    }()

    @Test func theJSONAndJUnitTimestampIsTheFormattersToTheMillisecond() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        for date in Self.dates {
            #expect(RunProvenance.timestamp(date) == formatter.string(from: date), "\(date.timeIntervalSince1970)")
        }
        #expect(RunProvenance.timestamp(Date(timeIntervalSince1970: 1_709_164_800.25)) == "2024-02-29T00:00:00.250Z")
    }

    @Test func theHTMLDateIsTheFormattersToTheSecond() {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        for date in Self.dates {
            let utc = UTCTime(date)
            let expected = formatter.string(from: date).replacingOccurrences(of: "T", with: " ")
                .replacingOccurrences(of: "Z", with: " UTC")
            #expect("\(utc.day) \(utc.time) UTC" == expected, "\(date.timeIntervalSince1970)")
        }
    }

    @Test func aTimeBefore1970CountsItsMillisecondsForward() {
        let utc = UTCTime(Date(timeIntervalSince1970: -0.25))
        #expect("\(utc.day)T\(utc.time).\(utc.milliseconds)" == "1969-12-31T23:59:59.750")
    }
}
