// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.
import Foundation

/// The repository's root directory, where Package.swift is: the one place that knows where
/// the test sources sit (this file is `Tests/VaultTestSupport/PackageRoot.swift`), so that a
/// test file can move between folders without counting `..`s.
public enum PackageRoot {
    /// The root's absolute path, without a trailing slash.
    public static let path: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The absolute path of `relative` (e.g. "Tests/Helpers/test-browser") under the root.
    public static func appending(_ relative: String) -> String { path + "/" + relative }
}
