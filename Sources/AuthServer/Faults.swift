// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultSync

/// How the refresh endpoints (`POST /api/refresh_tokens`, the OAuth `refresh_token` grant, and
/// both grants of `POST /apple/auth/token`) answer while a fault is injected. A faulted request
/// never looks at (or consumes) the refresh token or code it carries.
public enum RefreshFaultMode: String, Codable, Sendable, CaseIterable {
    /// Normal behaviour.
    case normal
    /// 500 with `{"code":500,"message":"internal server error"}`
    /// (OAuth: `{"error":"server_error"}`).
    case status500
    /// 400 with an empty body: a provider that refuses a refresh token without the RFC 6749
    /// `invalid_grant` (Glewlwyd answers a dead refresh token so).
    case emptyStatus400
    /// 401 with an empty body.
    case emptyStatus401
    /// 200 with a body that is not JSON.
    case garbage
    /// No answer for ``RefreshFaults/Setting/hangSeconds`` (then a 500), or until the
    /// server stops.
    case hang
    /// A 200 head promising a 512-byte JSON body, 256 bytes of it, then no more for
    /// ``RefreshFaults/Setting/hangSeconds`` (then the connection is dropped): a stalled
    /// body, which a client's header timeout alone does not catch.
    case stallBody
}

/// The test-only fault switch of the refresh endpoints, settable in-process
/// (``ReferenceAuthServer/faults``) or over HTTP (`POST /api/test/fault`, only with
/// ``AuthServerConfiguration/testControls``).
public final class RefreshFaults: Sendable {
    /// The current fault setting.
    public struct Setting: Sendable, Equatable, Codable {
        /// What the refresh endpoints do.
        public var mode: RefreshFaultMode
        /// How many refresh requests get the fault before the mode reverts to ``RefreshFaultMode/normal``;
        /// `nil` means until changed.
        public var remaining: Int?
        /// How long ``RefreshFaultMode/hang`` holds a request, in seconds (capped at 60).
        public var hangSeconds: Double

        /// Creates a setting.
        public init(mode: RefreshFaultMode = .normal, remaining: Int? = nil, hangSeconds: Double = 30) {
            self.mode = mode
            self.remaining = remaining
            self.hangSeconds = hangSeconds
        }
    }

    /// The longest a hang may last, in seconds.
    public static let maximumHangSeconds: Double = 60

    private let state = Locked(Setting())

    /// Creates a switch in ``RefreshFaultMode/normal`` mode.
    public init() {}

    /// The current setting.
    public var setting: Setting {
        state.withLock { $0 }
    }

    /// Injects `mode` for the next `count` refresh requests (`nil`: until changed).
    /// `hangSeconds` is clamped to 0...``maximumHangSeconds``.
    public func set(_ mode: RefreshFaultMode, count: Int? = nil, hangSeconds: Double = 30) {
        let hang = hangSeconds.isFinite ? min(max(hangSeconds, 0), Self.maximumHangSeconds) : Self.maximumHangSeconds
        let remaining = count.map { max($0, 0) }
        state.withLock {
            $0 = Setting(mode: remaining == 0 ? .normal : mode, remaining: remaining, hangSeconds: hang)
        }
    }

    /// Back to normal behaviour.
    public func reset() {
        set(.normal)
    }

    /// Claims the fault for one refresh request: returns the setting to apply (mode
    /// ``RefreshFaultMode/normal`` when none) and counts down ``Setting/remaining``.
    func claim() -> Setting {
        state.withLock { current in
            let applied = current
            guard current.mode != .normal else { return applied }
            if let remaining = current.remaining {
                current.remaining = remaining - 1
                if remaining - 1 <= 0 {
                    current.mode = .normal
                    current.remaining = nil
                }
            }
            return applied
        }
    }
}
