// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultStore

extension AuthSession {
    /// Sign in with Apple, the server's half: exchanges the authorization `code` the app
    /// received (with a client secret signed by the developer's key), verifies the ID token
    /// (`nonce` when given), and stores the tokens and `settings` (``LoginSettings/apple(serverURL:clientID:apple:)``).
    ///
    /// `profile` (the name and e-mail Apple gives the app at the first sign-in only) is
    /// stored in the settings item *before* the exchange, merged with one kept from an
    /// earlier sign-in (empty values never erase kept ones), so a failed or interrupted
    /// exchange loses nothing; it stays until ``markRegistered()``.
    /// `locked` runs once the account's lock is held for the final writes.
    @discardableResult
    public func signInWithApple(
        code: Secret, settings requested: LoginSettings, profile: PendingProfile? = nil, nonce: String? = nil,
        redirectURI: String? = nil, locked: @Sendable () -> Void = {}
    ) async throws(AuthError) -> TokenSet {
        guard requested.provider == .apple, requested.apple != nil else {
            throw .configuration("Sign in with Apple needs settings made by LoginSettings.apple")
        }
        guard let codeText = code.utf8String, !codeText.isEmpty, TokenCharacters.isAcceptable(codeText) else {
            throw .invalidRequest("the authorization code is empty or has characters a code cannot have")
        }
        let provider = try oauthProvider(for: requested)
        var settings = requested
        settings.pendingProfile = try await keepPendingProfile(profile, settings: requested)
        let tokens = try await provider.exchange(code: codeText, redirectURI: redirectURI, nonce: nonce)
        // The exchange brought a verified ID token: the profile is this user's from now on.
        let subject = tokens.idToken?.utf8String.flatMap(IDTokenClaims.init(storedToken:))?.subject
        settings.pendingProfile = subject.flatMap { settings.pendingProfile?.bound(to: $0) }
        try await adopt(tokens, settings: settings, locked: locked)
        return tokens
    }

    /// Says the app's backend has registered the user: the pending name and e-mail address
    /// are dropped from the settings item. Nothing happens when there are none.
    public func markRegistered() async throws(AuthError) {
        let items = self.items
        try await withAccountLock { () async throws(AuthError) in
            guard let data = try await items.loadSettingsData(), var settings = LoginSettings.decode(data),
                settings.pendingProfile != nil
            else { return }
            settings.pendingProfile = nil
            try await items.saveSettingsData(settings.encoded())
        }
    }

    /// Stores `profile` before an exchange, merged into the one the settings item keeps
    /// while that one still waits for its sign-in; one already bound to a user (an earlier,
    /// successful sign-in) is replaced, since the new profile may be another user's. Returns
    /// what is kept (nil when nothing is). The item's other settings are left as they are;
    /// with no settings item yet, `requested` is stored with the profile.
    private func keepPendingProfile(_ profile: PendingProfile?, settings requested: LoginSettings) async throws(AuthError) -> PendingProfile? {
        let items = self.items
        return try await withAccountLock { () async throws(AuthError) -> PendingProfile? in
            let stored = (try await items.loadSettingsData()).flatMap(LoginSettings.decode)
            let kept = stored?.pendingProfile
            guard let profile, !profile.isEmpty else { return kept }
            let unbound = PendingProfile(name: profile.name, email: profile.email)
            let merged = kept.flatMap { $0.subject == nil ? $0.updated(with: unbound) : nil } ?? unbound
            if merged != kept {
                var settings = stored ?? requested
                settings.pendingProfile = merged
                try await items.saveSettingsData(settings.encoded())
            }
            return merged
        }
    }
}
