// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// Whether printed text holds a JWT: a base64url JSON header (`eyJ`), a dot, a payload and
/// a second dot. A bare `eyJ` is not enough: one random base64url word in 262,144 begins
/// with it (a sign-in's start link did, and failed a leak check).
public func containsJWT(_ text: String) -> Bool {
    text.contains(#/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\./#)
}
