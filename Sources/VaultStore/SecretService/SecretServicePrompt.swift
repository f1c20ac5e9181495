// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import CLibSecret

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One Secret Service prompt (`org.freedesktop.Secret.Prompt`), run with a bound.
///
/// libsecret's `_sync` calls perform a prompt and wait for its `Completed` signal without
/// any limit, so a prompt nobody sees (a headless KeePassXC asking to confirm a deletion)
/// hangs the caller for ever. vault therefore makes the calls that may return a prompt
/// (`Item.Delete`, `Service.Unlock`) itself and runs the prompt here: `Prompt("")`, then
/// wait for `Completed` until the deadline, then `Dismiss()`.
enum SecretServicePrompt {
    /// How a prompt ended.
    enum Outcome: Equatable {
        /// The person agreed (`Completed` with `dismissed` false).
        case completed
        /// The person declined, or the service dismissed the prompt itself.
        case dismissed
        /// Nobody answered in time; vault dismissed the prompt.
        case timedOut
    }

    /// The path the Secret Service returns for "no prompt needed".
    static let noPrompt = "/"

    /// How long a prompt is given to complete by itself before vault concludes that it
    /// waits for a person: KeePassXC returns a prompt for every deletion and creation,
    /// which completes at once unless its settings ask the user to confirm.
    static let selfAnsweringBound: Duration = .seconds(1)

    /// Shows the prompt at `path` and waits for its answer: `selfAnsweringBound` quietly,
    /// then, when `patience` is given, `announce()` and at most `patience` more. A prompt
    /// still unanswered is dismissed (`.timedOut`).
    static func run(
        _ path: String, connection: OpaquePointer, patience: Duration?, announce: () -> Void,
        callTimeoutMilliseconds: Int32
    ) throws(GLibError) -> Outcome {
        guard let context = g_main_context_new() else { throw GLibError(domain: 0, code: 0, message: "no GLib main context") }
        g_main_context_push_thread_default(context)
        defer {
            g_main_context_pop_thread_default(context)
            g_main_context_unref(context)
        }
        let state = CompletionState()
        // The subscription holds one reference, released by GLib's destroy notify.
        let subscription = g_dbus_connection_signal_subscribe(
            connection, nil, promptInterface, "Completed", path, nil, G_DBUS_SIGNAL_FLAGS_NONE,
            { _, _, _, _, _, parameters, userData in
                guard let userData, let parameters else { return }
                let state = Unmanaged<CompletionState>.fromOpaque(userData).takeUnretainedValue()
                let dismissed = g_variant_get_child_value(parameters, 0)!
                defer { g_variant_unref(dismissed) }
                state.answer = g_variant_get_boolean(dismissed) != 0 ? .dismissed : .completed
            }, Unmanaged.passRetained(state).toOpaque(),
            { userData in
                guard let userData else { return }
                let state = Unmanaged<CompletionState>.fromOpaque(userData).takeRetainedValue()
                state.released = true
            })
        defer {
            g_dbus_connection_signal_unsubscribe(connection, subscription)
            // GLib releases the subscription's reference from this context: let it.
            iterate(context, until: { state.released }, for: .milliseconds(200))
        }

        let shown = try SecretServiceDBus.call(
            connection, path: path, interface: promptInterface, method: "Prompt",
            arguments: [g_variant_new_string("")], timeoutMilliseconds: callTimeoutMilliseconds)
        g_variant_unref(shown)

        iterate(context, until: { state.answer != nil }, for: selfAnsweringBound)
        if let answer = state.answer { return answer }
        if let patience {
            announce()
            iterate(context, until: { state.answer != nil }, for: patience)
            if let answer = state.answer { return answer }
        }
        dismiss(path, connection: connection, callTimeoutMilliseconds: callTimeoutMilliseconds)
        // A service may still send Completed(dismissed) after the Dismiss; take it if it comes.
        iterate(context, until: { state.answer != nil }, for: .milliseconds(200))
        return .timedOut
    }

    /// Withdraws a prompt that vault will not show or no longer waits for (best effort).
    static func dismiss(_ path: String, connection: OpaquePointer, callTimeoutMilliseconds: Int32) {
        if let reply = try? SecretServiceDBus.call(
            connection, path: path, interface: promptInterface, method: "Dismiss", arguments: [],
            timeoutMilliseconds: callTimeoutMilliseconds)
        {
            g_variant_unref(reply)
        }
    }

    private static let promptInterface = "org.freedesktop.Secret.Prompt"

    /// Dispatches `context` until `done()` or `duration` has passed.
    private static func iterate(_ context: OpaquePointer, until done: () -> Bool, for duration: Duration) {
        let clock = ContinuousClock()
        let deadline = clock.now + duration
        while !done() && clock.now < deadline {
            if g_main_context_iteration(context, 0) == 0 { usleep(10_000) }
        }
    }
}

/// The answer a `Completed` signal brought, written and read on the waiting thread only
/// (the subscription dispatches on that thread's own main context).
private final class CompletionState {
    var answer: SecretServicePrompt.Outcome?
    var released = false
}
