// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import CLibSecret

/// The default collection during one `SecretServiceStore` operation: the session bus
/// connection, the collection's object path, and everything that may need a prompt
/// (unlocking, deleting, approving access), run under the store's ``PromptPolicy``.
///
/// Errors name the program that owns `org.freedesktop.secrets` (GNOME Keyring, KeePassXC,
/// another) and give the fix that applies to it; the owner is asked only for an error.
struct OpenCollection {
    /// The session bus connection `SessionBus` gave (borrowed; the store owns the reference).
    let connection: OpaquePointer
    /// The default collection's object path.
    let path: String
    let prompts: PromptPolicy
    let callTimeoutMilliseconds: Int32

    private static let itemInterface = "org.freedesktop.Secret.Item"

    /// The program behind the Secret Service (from the bus owner's /proc entry): for
    /// messages, and for KeePassXC's in-place relabel. `.other(nil)` when it cannot be told.
    var implementation: SecretServiceImplementation {
        SecretServiceImplementation.current(connection: connection, timeoutMilliseconds: callTimeoutMilliseconds)
    }

    // MARK: Lock state

    /// The collection's `Locked` property.
    func isLocked() throws(VaultError) -> Bool {
        do {
            let value = try SecretServiceDBus.property(
                connection, path: path, interface: SecretServiceDBus.collectionInterface, name: "Locked",
                timeoutMilliseconds: callTimeoutMilliseconds)
            defer { g_variant_unref(value) }
            return g_variant_get_boolean(value) != 0
        } catch {
            throw SecretServiceStore.failure(error, doing: "read the lock state of \(path)")
        }
    }

    /// Unlocks the locked collection through the service's prompt, when a person may be
    /// asked; else, or when the prompt is not answered, throws `locked`.
    func unlock() throws(VaultError) {
        let service = implementation
        let locked = "\(service.name)'s default collection \(path) is locked"
        guard prompts.timeout != nil else {
            throw .locked("\(locked), and vault does not wait for an unlock prompt here (\(prompts.whyNever)); \(service.unlockHint)")
        }
        let outcome = try prompt(
            unlockingObjects: [path], asking: "asks to unlock its default collection", of: service,
            consequence: "the collection stays locked", orThrow: { .locked("\(locked): \($0); \(service.unlockHint)") })
        if outcome, try isLocked() {
            throw .locked("\(locked) after the unlock prompt; \(service.unlockHint)")
        }
    }

    // MARK: Items

    /// Runs `body` with a libsecret proxy of the item at `path` (for writing its secret
    /// through libsecret's encrypted session), on this collection's connection; the proxy
    /// lives until `body` returns.
    func withItemProxy<R>(
        _ path: String, cancellable: UnsafeMutablePointer<GCancellable>, _ body: (UnsafeMutablePointer<SecretItem>) throws(VaultError) -> R
    ) throws(VaultError) -> R {
        let service = try libsecretService(cancellable: cancellable)
        defer { g_object_unref(UnsafeMutableRawPointer(service)) }
        var error: UnsafeMutablePointer<GError>? = nil
        guard let item = secret_item_new_for_dbus_path_sync(service, path, SECRET_ITEM_NONE, cancellable, &error) else {
            throw failure(GLibError.take(&error), doing: "open the item")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(item)) }
        return try body(item)
    }

    /// libsecret's service proxy on this collection's connection (`SessionBus.service(on:)`;
    /// the caller unrefs it).
    func libsecretService(cancellable: UnsafeMutablePointer<GCancellable>) throws(VaultError) -> UnsafeMutablePointer<SecretService> {
        do throws(GLibError) {
            return try SessionBus.service(on: connection, cancellable: cancellable)
        } catch {
            throw failure(error, doing: "connect to the Secret Service")
        }
    }

    /// Asks the service to let this client use `items` (KeePassXC's access confirmation),
    /// through its prompt when a person may be asked; else throws `notApproved`.
    func approveAccess(to items: [SecretServiceStore.FoundItem]) throws(VaultError) {
        guard let first = items.first else { return }
        let service = implementation
        guard prompts.timeout != nil else {
            throw accessRefused(to: first, "vault does not wait for an approval here (\(prompts.whyNever))", service: service)
        }
        _ = try prompt(
            unlockingObjects: items.map(\.path), asking: "asks whether vault may use \(Self.quoted(first.label))",
            of: service, consequence: "nothing was read or changed",
            orThrow: { .notApproved("\(service.name) did not allow vault to use \(Self.quoted(first.label)): \($0); \(service.accessHint)") })
    }

    /// The error for an item whose access the service did not approve.
    func accessRefused(
        to item: SecretServiceStore.FoundItem, _ why: String, service: SecretServiceImplementation? = nil
    ) -> VaultError {
        let service = service ?? implementation
        return .notApproved(
            "\(service.name) has not allowed vault to use \(Self.quoted(item.label)) (\(why)); nothing was read or changed; \(service.accessHint)")
    }

    /// Deletes `item` with `Item.Delete`, running the confirmation prompt the service may
    /// return under the prompt policy. An item another client deleted first counts as
    /// deleted; an unconfirmed deletion throws `notApproved` and the item stays.
    func delete(_ item: SecretServiceStore.FoundItem, doing action: String) throws(VaultError) {
        let prompt: String
        do {
            let reply = try SecretServiceDBus.call(
                connection, path: item.path, interface: Self.itemInterface, method: "Delete", arguments: [],
                timeoutMilliseconds: callTimeoutMilliseconds)
            defer { g_variant_unref(reply) }
            prompt = SecretServiceDBus.string(reply, child: 0)
        } catch {
            if error.isVanishedItem { return }
            throw failure(error, doing: action)
        }
        if prompt == SecretServicePrompt.noPrompt { return }
        let service = implementation
        let kept = "\(Self.quoted(item.label)) was not deleted and is still there"
        _ = try run(
            prompt: prompt, asking: "asks to confirm deleting \(Self.quoted(item.label))", of: service, consequence: kept,
            orThrow: {
                .notApproved("\(service.name) asks to confirm the deletion, and it was not confirmed (\($0)): \(kept); \(service.deletionHint)")
            })
    }

    /// Runs a libsecret call that reports success as a gboolean, mapping failure.
    func check(_ action: String, _ call: (inout UnsafeMutablePointer<GError>?) -> gboolean) throws(VaultError) {
        var error: UnsafeMutablePointer<GError>? = nil
        let succeeded = call(&error) != 0
        let failure = GLibError.take(&error)
        if succeeded && failure == nil { return }
        throw self.failure(failure, doing: action)
    }

    /// The `VaultError` for a failed call on an item of this (unlocked) collection: an item
    /// that is "locked" here is one whose access the service has not approved.
    func failure(_ error: GLibError?, doing action: String) -> VaultError {
        if let error, error.isLocked {
            let service = implementation
            return .notApproved(
                "could not \(action): \(service.name) has not allowed vault to use the item (\(error.message)); \(service.accessHint)")
        }
        return SecretServiceStore.failure(error, doing: action)
    }

    // MARK: Prompts

    /// `Service.Unlock(objects)`; runs the prompt it returns. True when a prompt ran and
    /// was completed, false when none was needed.
    private func prompt(
        unlockingObjects objects: [String], asking question: String, of service: SecretServiceImplementation,
        consequence: String, orThrow refusal: (String) -> VaultError
    ) throws(VaultError) -> Bool {
        let prompt: String
        do {
            let reply = try SecretServiceDBus.call(
                connection, path: SecretServiceDBus.servicePath, interface: SecretServiceDBus.serviceInterface,
                method: "Unlock", arguments: [SecretServiceDBus.objectPaths(objects)],
                timeoutMilliseconds: callTimeoutMilliseconds)
            defer { g_variant_unref(reply) }
            prompt = SecretServiceDBus.string(reply, child: 1)
        } catch {
            throw failure(error, doing: "ask \(service.name) to unlock")
        }
        if prompt == SecretServicePrompt.noPrompt { return false }
        return try run(prompt: prompt, asking: question, of: service, consequence: consequence, orThrow: refusal)
    }

    /// Shows `prompt` and waits for its answer: a moment for a prompt that needs nobody,
    /// then, when a person may be asked, says so through the policy's `announce` and waits
    /// within the policy's bound. Returns true when it was completed; throws `refusal(why)`
    /// when it was declined or not answered in time (then it has been dismissed).
    private func run(
        prompt: String, asking question: String, of service: SecretServiceImplementation, consequence: String,
        orThrow refusal: (String) -> VaultError
    ) throws(VaultError) -> Bool {
        let seconds = prompts.timeout.map { $0.components.seconds } ?? 0
        let outcome: SecretServicePrompt.Outcome
        do {
            outcome = try SecretServicePrompt.run(
                prompt, connection: connection, patience: prompts.timeout,
                announce: {
                    prompts.announce(
                        "\(service.name) \(question): answer it there; waiting up to \(seconds) s")
                }, callTimeoutMilliseconds: callTimeoutMilliseconds)
        } catch {
            SecretServicePrompt.dismiss(prompt, connection: connection, callTimeoutMilliseconds: callTimeoutMilliseconds)
            throw refusal("the prompt could not be shown: \(error.message)")
        }
        switch outcome {
        case .completed: return true
        case .dismissed: throw refusal("the prompt was declined or dismissed")
        case .timedOut where prompts.timeout == nil: throw refusal("vault does not wait for a person here (\(prompts.whyNever))")
        case .timedOut: throw refusal("nobody answered within \(seconds) s")
        }
    }

    /// A label for a message, quoted. (Whoever shows the message escapes it, as the
    /// `vault` command does every message: escaping here too would escape twice.)
    private static func quoted(_ label: String) -> String { "\"\(label)\"" }
}
