// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import HTTPTypes
import VaultAuth

/// What the sign-in targets share: a transport that answers every request with fixed bytes,
/// a clock that stands still, and a way to run VaultAuth's async parsers from a synchronous
/// fuzz target without the shared concurrency pool.

/// A transport whose every response is `response` and `body`: the fuzzer's bytes as a server's answer.
struct FixedTransport: HTTPTransport {
    let response: HTTPResponse
    let body: [UInt8]

    init(status: Int = 200, headers: [(name: String, value: String)] = [], body: [UInt8]) {
        response = HTTPResponse(status: .init(code: status), headerFields: HTTPFields(fuzzed: headers))
        self.body = body
    }

    func send(_ request: HTTPRequest, body: [UInt8]?, timeout: Duration) async throws(AuthError) -> (response: HTTPResponse, body: [UInt8]) {
        (response, self.body)
    }
}

extension HTTPFields {
    /// The fields `pairs` as a server could send them: a name that is not a token is left
    /// out (no HTTP parser passes one on); a value is as swift-http-types legalises it.
    init(fuzzed pairs: [(name: String, value: String)]) {
        self.init()
        for (name, value) in pairs {
            if let fieldName = HTTPField.Name(name) { append(HTTPField(name: fieldName, value: value)) }
        }
    }
}

/// A clock that always reads `date`, so a target is deterministic.
struct FixedClock: AuthClock {
    let date: Date
    func now() -> Date { date }
}

/// The fixed "now" of the sign-in targets: 2026-01-01T00:00:00Z.
let fuzzNow = Date(timeIntervalSince1970: 1_767_225_600)

/// Runs async code to completion from synchronous code.
///
/// The task prefers a task executor of its own, one thread that runs its jobs (and, by
/// SE-0417, the jobs of the default actors it calls), so waiting for it never waits on the
/// shared cooperative pool: safe from a libFuzzer callback and from a `swift test` case
/// that itself runs on that pool. Fuzz targets use it only with transports that answer at
/// once; the wait is still bounded, and running out of it is reported as a hang.
enum AsyncRunner {
    /// The longest wait for one input, generous for a loaded machine.
    static let limit: DispatchTimeInterval = .seconds(20)

    /// The value of `body`, or an ``InvariantViolation`` when it did not finish within ``limit``.
    static func run<Value: Sendable>(_ body: @escaping @Sendable () async -> Value) throws(InvariantViolation) -> Value {
        let outcome = Outcome<Value>()
        Task(executorPreference: JobThread.shared) {
            outcome.set(await body())
        }
        guard let value = outcome.wait(limit) else {
            throw InvariantViolation("the async parser did not finish within \(limit)")
        }
        return value
    }

    /// One task's value, handed from the job thread to the waiting caller.
    private final class Outcome<Value: Sendable>: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var value: Value?

        func set(_ newValue: Value) {
            lock.withLock { value = newValue }
            done.signal()
        }

        func wait(_ limit: DispatchTimeInterval) -> Value? {
            guard done.wait(timeout: .now() + limit) == .success else { return nil }
            return lock.withLock { value }
        }
    }
}

/// A task executor of one thread that runs its jobs in the order they come.
private final class JobThread: TaskExecutor, @unchecked Sendable {
    static let shared = JobThread()

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    private init() {
        let thread = Thread { [unowned self] in self.runJobs() }
        thread.name = "vault-fuzz-jobs"
        thread.start()
    }

    func enqueue(_ job: UnownedJob) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func runJobs() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// The string members of a JSON object as `JSONDecoder` reads them (of a name given twice,
/// the first, as vault's Codable responses read it), and its members that are arrays of
/// strings: the oracle of the sign-in targets.
struct JSONStringFields: Decodable {
    let values: [String: String]
    let lists: [String: [String]]

    private struct Name: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Name.self)
        var values: [String: String] = [:]
        var lists: [String: [String]] = [:]
        for key in container.allKeys {
            if let text = try? container.decode(String.self, forKey: key) { values[key.stringValue] = text }
            if let list = try? container.decode([String].self, forKey: key) { lists[key.stringValue] = list }
        }
        self.values = values
        self.lists = lists
    }

    /// The members of `bytes`, or nil when it is not a JSON object.
    static func read(_ bytes: [UInt8]) -> Self? {
        try? JSONDecoder().decode(Self.self, from: Data(bytes))
    }

    /// The string members of `bytes`, or nil when it is not a JSON object.
    static func of(_ bytes: [UInt8]) -> [String: String]? {
        read(bytes)?.values
    }
}
