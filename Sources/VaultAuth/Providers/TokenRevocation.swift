// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultStore

extension OAuth2Provider {
    /// Tells the provider to revoke `token` (RFC 7009 §2.1) at ``revocationURL``, with the
    /// client's authentication; `hint` is `refresh_token` or `access_token`. A 200 is
    /// success (the token is dead, or was unknown: §2.2); anything else is the error
    /// ``classify(_:)`` gives, and nil ``revocationURL`` is `.configuration`.
    public func revoke(_ token: Secret, hint: String) async throws(AuthError) {
        guard let revocationURL else { throw .configuration("the provider has no revocation endpoint") }
        guard let text = token.utf8String else { return }
        let response = try await clientPost(revocationURL, [("token", text), ("token_type_hint", hint)])
        guard response.status == 200 else { throw Self.classify(response, endpoint: "the revocation endpoint") }
    }
}
