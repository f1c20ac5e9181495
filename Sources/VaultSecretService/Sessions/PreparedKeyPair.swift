// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore
import VaultSync

/// One Diffie-Hellman key pair of the Second Oakley Group made ahead of the next
/// `OpenSession`, so that a client's session costs one exponentiation (the shared secret)
/// on its path instead of two.
///
/// Each pair is used once: ``take()`` hands the ready pair to one session (or makes one
/// there and then when none is ready) and starts making the next on a thread of its own
/// (``Blocking/detach(_:)``: the exponentiation never holds a thread of the concurrency pool).
/// A pair waits in memory only until the next session, as the session's own pair does
/// while it is open.
package final class PreparedKeyPair: Sendable {
    /// A private exponent and its public key g^x mod p.
    package struct Pair: Sendable {
        package var privateKey: [UInt8]
        package var publicKey: [UInt8]
    }

    /// The provider's reserve.
    package static let shared = PreparedKeyPair()

    private let state = Locked<(ready: Pair?, making: Bool)>((nil, false))

    package init() {}

    /// A fresh pair, never handed out before; the next one is made in the background.
    package func take() -> Pair {
        let (taken, startMaking): (Pair?, Bool) = state.withLock { state in
            let taken = state.ready
            state.ready = nil
            let start = !state.making
            state.making = true
            return (taken, start)
        }
        if startMaking {
            Blocking.detach { [self] in
                let pair = Self.make()
                state.withLock { state in
                    state.ready = pair
                    state.making = false
                }
            }
        }
        return taken ?? Self.make()
    }

    /// A new pair, made now.
    package static func make() -> Pair {
        let privateKey = OakleyGroup2.makePrivateKey()
        return Pair(privateKey: privateKey, publicKey: OakleyGroup2.publicKey(privateKey: privateKey))
    }
}
