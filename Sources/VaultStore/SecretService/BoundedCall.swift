// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import CLibSecret
import Dispatch

/// A libsecret call within vault's bound instead of D-Bus's default 25 s: the call gets a
/// `GCancellable` that is cancelled when `milliseconds` have passed, and a call cancelled
/// that way throws `timedOut()` instead of its own error.
enum BoundedCall {
    static func run<T, E: Error>(
        milliseconds: Int32, timedOut: () -> E, _ body: (UnsafeMutablePointer<GCancellable>) throws(E) -> T
    ) throws(E) -> T {
        let cancellable = g_cancellable_new()!
        defer { g_object_unref(UnsafeMutableRawPointer(cancellable)) }
        let handle = CancellableHandle(cancellable)
        let timer = DispatchWorkItem { handle.cancel() }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(milliseconds)), execute: timer)
        defer { timer.cancel() }
        do {
            return try body(cancellable)
        } catch {
            guard g_cancellable_is_cancelled(cancellable) != 0 else { throw error }
            throw timedOut()
        }
    }

    /// The bound for `calls` round trips of `milliseconds` each.
    static func bound(calls: Int, of milliseconds: Int32) -> Int32 { Int32(clamping: Int(milliseconds) * calls) }

    /// A timeout as a `GLibError` (`isTimeout`).
    static func timeout(_ milliseconds: Int32) -> GLibError {
        GLibError(domain: g_io_error_quark(), code: Int32(G_IO_ERROR_TIMED_OUT.rawValue), message: "no answer within \(milliseconds) ms")
    }
}

/// A `GCancellable` for the timer's thread (`g_cancellable_cancel` is thread-safe; the
/// work item is cancelled before the cancellable is released, and a cancel already under
/// way holds its own reference).
private final class CancellableHandle: @unchecked Sendable {
    private let cancellable: UnsafeMutablePointer<GCancellable>
    init(_ cancellable: UnsafeMutablePointer<GCancellable>) {
        self.cancellable = cancellable
        g_object_ref(UnsafeMutableRawPointer(cancellable))
    }
    deinit { g_object_unref(UnsafeMutableRawPointer(cancellable)) }
    func cancel() { g_cancellable_cancel(cancellable) }
}
