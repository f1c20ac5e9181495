// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// Whether `error` is of the expected type and of one of the `expected` cases, whatever the
/// message a case carries: `sameCase(error, as: VaultError.corrupted(""))` holds for any
/// `.corrupted`; a case without a payload must equal the expected one. For a test's
/// `#expect { … } throws: { … }`, so that a test of refused input does not pass on a
/// network error:
///
///     #expect { try store.load(key) } throws: { sameCase($0, as: VaultError.corrupted(""), .unsupportedFormat("")) }
public func sameCase<E: Error & Equatable>(_ error: any Error, as expected: E...) -> Bool {
    guard let error = error as? E else { return false }
    let name = caseName(error)
    return expected.contains { candidate in
        let expectedName = caseName(candidate)
        return name == nil && expectedName == nil ? error == candidate : name == expectedName
    }
}

/// The name of an enum case with a payload (reflection labels the payload with it); nil
/// for a case without one.
private func caseName(_ value: some Any) -> String? { Mirror(reflecting: value).children.first?.label }
