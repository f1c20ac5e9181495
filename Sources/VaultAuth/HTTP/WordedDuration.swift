// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

extension Duration {
    /// The duration as a message says it: "40 ms" below a second, then "3 seconds", "2.5
    /// seconds", "1 second", "45 seconds" (tenths below 10 s, whole seconds above). A bound
    /// that is what is left of a longer one (2.999994862 s of 3) reads as the bound it was.
    package var worded: String {
        let (seconds, attoseconds) = components
        let total = Double(seconds) + Double(attoseconds) / 1e18
        if total < 0.9995 { return "\(Int((total * 1000).rounded())) ms" }
        let rounded = total < 10 ? (total * 10).rounded() / 10 : total.rounded()
        let number = rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
        return "\(number) second\(rounded == 1 ? "" : "s")"
    }
}
