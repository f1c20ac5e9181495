// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// The fixed list served by `GET /api/get_devs`.
enum DeveloperDirectory {
    /// The developers, in id order.
    static let all: [Developer] = [
        Developer(id: 1, name: "Ada Lovelace", department: "Analytical Engines"),
        Developer(id: 2, name: "Grace Hopper", department: "Compilers"),
        Developer(id: 3, name: "Edsger Dijkstra", department: "Algorithms"),
        Developer(id: 4, name: "Barbara Liskov", department: "Abstractions"),
    ]
}
