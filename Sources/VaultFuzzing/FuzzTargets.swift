// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// Every fuzz target, by name. Adding a parser that reads others' bytes means adding its
/// target here, with a seed corpus in `Tests/Fuzz/Corpus/<name>/`.
public enum FuzzTargets {
    public static let all: [FuzzTarget] = [
        AgentProtocolTargets.request,
        AgentProtocolTargets.answer,
        VaultFileTargets.file,
        VaultContentsTargets.contents,
        FleetTargets.parameters,
        FleetTargets.envelope,
        EtcdWireTargets.json,
        GitCredentialTargets.message,
        DHSessionTargets.session,
        SecretServiceTargets.call,
        GVariantAttributeTargets.attributes,
        OAuthResponseTargets.tokenResponse,
        OAuthResponseTargets.error,
        DiscoveryTargets.deviceAuthorization,
        DiscoveryTargets.discovery,
        IDTokenTargets.idToken,
        LoopbackTargets.request,
    ]

    /// The target called `name`, or nil.
    public static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }
}
