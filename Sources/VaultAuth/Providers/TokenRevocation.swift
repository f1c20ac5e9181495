// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import HTTPTypes
import VaultStore

extension OAuth2Provider {
    /// Tells the provider to revoke `token` (RFC 7009 §2.1) at ``revocationURL``, with the
    /// client's authentication; `hint` is `refresh_token` or `access_token`. A 200 is
    /// success (the token is dead, or was unknown: §2.2). A 400, 401 or 403 is a refusal,
    /// `.server` with its status (providers that revoke only for clients that
    /// authenticate answer a public client with a 401); anything else is the error
    /// ``classify(_:body:endpoint:)`` gives, and nil ``revocationURL`` is `.configuration`.
    public func revoke(_ token: Secret, hint: String) async throws(AuthError) {
        guard let revocationURL else { throw .configuration("the provider has no revocation endpoint") }
        guard let text = token.utf8String else { return }
        let (response, body) = try await clientPost(revocationURL, [("token", text), ("token_type_hint", hint)])
        let status = response.status.code
        guard status == 200 else {
            let error = Self.classify(response, body: body, endpoint: "the revocation endpoint")
            guard [400, 401, 403].contains(status) else { throw error }
            let code = error.providerCode.map { ", \($0)" } ?? ""
            throw .server(status: status, message: "the provider refused to revoke the token (HTTP \(status)\(code))")
        }
    }
}
