// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import VaultAuth
import VaultStoreCLI

/// Runs `body`; an `AuthError` becomes one line on stderr (``AuthError/worded``) and its exit code.
func reportingAuthErrors(_ body: () async throws(AuthError) -> Void) async throws(ExitCode) {
    do {
        try await body()
    } catch {
        Terminal.note(error.commandLineMessage, priority: .error)
        throw ExitCode(ExitStatus.of(error))
    }
}

extension AuthError {
    /// The line `vault` shows for this error: the library's message with its ``AuthError/remedy``
    /// worded in vault's commands and flags (a store error's as ``VaultError/worded``).
    var commandLineMessage: String {
        switch (self, remedy) {
        case (.store(let error), _):
            return error.worded
        case (.notLoggedIn(let server, let account, let nearby), _):
            return AccountNotFound.message(server: server, account: account, nearby: nearby)
        case (.interactionRequired(let why, _, _), let remedy):
            return "the session has ended; \(Self.advice(remedy ?? .logIn(server: nil, account: nil))) (\(why))"
        case (.configuration, .giveSetting(let setting)?):
            return "configuration error: the OAuth 2.0 provider needs \(Self.flag(for: setting))"
        case (.invalidRequest, .giveSetting(.issuer)?):
            return "\(Self.flag(for: .issuer)) must be the provider's issuer URL, such as https://accounts.example.com"
        case (_, let remedy?):
            return "\(description); \(Self.advice(remedy))"
        case (_, nil):
            return description
        }
    }

    /// `remedy` in vault's words, as it follows a message after "; ".
    static func advice(_ remedy: AuthRemedy) -> String {
        switch remedy {
        case .logIn(let server?, let account?):
            ShellWord.loginCommand(server: server, account: account).map { "run " + $0 + StoreHintWords.suffix } ?? "run vault login"
        case .logIn: "run vault login"
        case .logInAgain: "run vault login again"
        case .checkClient: "check --client-id and the client secret, then run vault login"
        case .giveSetting(let setting): "give \(flag(for: setting))"
        case .giveEndpoint(let setting, .device): "give \(flag(for: setting)) or use --device"
        case .giveEndpoint(let setting, _): "give \(flag(for: setting)) or sign in without --device"
        case .giveEndpoints: "give the endpoints with --provider oauth2"
        case .useProvider(let kinds): "use --provider " + kinds.map(\.rawValue).joined(separator: " or ")
        case .checkRedirect:
            "if the provider showed an error, check --client-id, and give the redirect URI registered with it (--redirect-uri)"
        }
    }

    /// The `vault login` flag that gives `setting`.
    static func flag(for setting: LoginSettings.Setting) -> String {
        switch setting {
        case .tokenURL: "--token-url"
        case .clientID: "--client-id"
        case .issuer: "--issuer"
        case .authorizationURL: "--authorization-url"
        case .deviceURL: "--device-url"
        }
    }
}
