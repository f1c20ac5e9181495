// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// Plants other applications' items in the test keyring and proves afterwards that vault
/// left them byte for byte: same object path, same D-Bus properties (attributes, label,
/// created and modified times) and same secret. Uses only outside tools: `gdbus`,
/// `secret-tool`, and git with git's own libsecret credential helper.
struct KeyringInspector {
    /// The environment of the tools (the test keyring's bus, a private HOME for git).
    let environment: [String: String]

    /// Another application's item: its exact attributes, label and secret, and how it is written.
    struct Neighbour: CustomStringConvertible {
        var attributes: [String: String]
        var label: String
        var secret: String
        /// `git credential approve` input when git's helper writes it (else secret-tool).
        var gitInput: String?

        /// An item written by `secret-tool store --label=LABEL ATTRIBUTES...`.
        static func secretTool(_ attributes: [String: String], label: String, secret: String) -> Neighbour {
            Neighbour(attributes: attributes, label: label, secret: secret, gitInput: nil)
        }

        /// An item written by git's libsecret helper (git 2.39: network-password schema,
        /// `server` = host, `port` when given, `object` = path with `credential.useHttpPath`).
        static func git(user: String, host: String, port: Int?, path: String?, secret: String) -> Neighbour {
            var attributes = ["user": user, "server": host, "protocol": "https"]
            attributes["port"] = port.map(String.init)
            attributes["object"] = path
            let authority = host + (port.map { ":\($0)" } ?? "")
            return Neighbour(
                attributes: attributes, label: "Git: https://\(authority)/\(path ?? "")", secret: secret,
                gitInput: "protocol=https\nhost=\(authority)\n" + (path.map { "path=\($0)\n" } ?? "")
                    + "username=\(user)\npassword=\(secret)\n\n")
        }

        var description: String { "\(label) \(attributes.sorted { $0.key < $1.key })" }
    }

    /// A planted item and what it looked like right after it was written.
    struct Planted {
        var neighbour: Neighbour
        var path: String
        var snapshot: String
    }

    // MARK: Planting and checking

    /// Writes `neighbours` (fewer attributes first: secret-tool's and git's "store" replace
    /// every item that has all the new item's attributes) and snapshots each one.
    func plant(_ neighbours: [Neighbour], sourceLocation: SourceLocation = #_sourceLocation) throws -> [Planted] {
        for neighbour in neighbours.sorted(by: { $0.attributes.count < $1.attributes.count }) {
            let result: ProcessResult
            if let input = neighbour.gitInput, let helper = Self.gitHelper {
                result = try run(
                    "/usr/bin/git",
                    ["-c", "credential.helper=", "-c", "credential.helper=\(helper)", "-c", "credential.useHttpPath=true", "credential", "approve"],
                    stdin: input)
            } else {
                var arguments = ["store", "--label=\(neighbour.label)"]
                if neighbour.gitInput != nil { arguments += ["xdg:schema", "org.gnome.keyring.NetworkPassword"] }
                for (name, value) in neighbour.attributes.sorted(by: { $0.key < $1.key }) { arguments += [name, value] }
                result = try run("/usr/bin/secret-tool", arguments, stdin: neighbour.secret)
            }
            #expect(result.status == 0, "planting \(neighbour): \(result.err)", sourceLocation: sourceLocation)
        }
        return try neighbours.map { neighbour in
            // `attributes(of:)` leaves `xdg:schema` out (see `snapshot`), so compare without it.
            let expected = neighbour.attributes.filter { $0.key != "xdg:schema" }
            let paths = try items(matching: neighbour.attributes).filter { try attributes(of: $0) == expected }
            let path = try #require(paths.count == 1 ? paths.first : nil, "one item for \(neighbour): \(paths)", sourceLocation: sourceLocation)
            return Planted(neighbour: neighbour, path: path, snapshot: try snapshot(path))
        }
    }

    /// Expects every planted item unchanged: properties and secret (and `secret-tool
    /// lookup` by its full attribute set returns its secret, when no other item matches).
    func expectUntouched(_ planted: [Planted], after action: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for item in planted {
            var now = try snapshot(item.path)
            if now != item.snapshot {
                // Read once more: a concurrent test's delete can make one secret-tool search
                // fail; a change vault made does not go away.
                usleep(300_000)
                now = try snapshot(item.path)
            }
            #expect(now == item.snapshot, "\(item.neighbour) changed by \(action)", sourceLocation: sourceLocation)
            #expect(now.contains("secret = \(item.neighbour.secret)\n"), "\(item.neighbour) after \(action)", sourceLocation: sourceLocation)
            #expect(now.contains("label = \(item.neighbour.label)\n"), "\(item.neighbour) after \(action)", sourceLocation: sourceLocation)
            if try items(matching: item.neighbour.attributes).count == 1 {
                let lookup = try run("/usr/bin/secret-tool", ["lookup"] + item.neighbour.attributes.flatMap { [$0.key, $0.value] })
                #expect(
                    lookup.status == 0 && lookup.out == item.neighbour.secret, "lookup \(item.neighbour) after \(action)",
                    sourceLocation: sourceLocation)
            }
        }
    }

    // MARK: Reading the keyring

    /// The object paths of every item (in every collection) with at least `attributes`.
    func items(matching attributes: [String: String]) throws -> [String] {
        let dictionary = "{" + attributes.map { "'\($0.key)': '\($0.value)'" }.joined(separator: ", ") + "}"
        let result = try gdbus("/org/freedesktop/secrets", "org.freedesktop.Secret.Service.SearchItems", [dictionary])
        guard result.status == 0 else { throw CLIKeyringError("SearchItems failed: \(result.err)") }
        return Self.objectPaths(in: result.out)
    }

    /// An item's attributes, without `xdg:schema` and KeePassXC's own.
    func attributes(of path: String) throws -> [String: String] {
        let result = try gdbus(path, "org.freedesktop.DBus.Properties.Get", ["org.freedesktop.Secret.Item", "Attributes"])
        guard result.status == 0 else { throw CLIKeyringError("Get Attributes of \(path) failed: \(result.err)") }
        var attributes: [String: String] = [:]
        let pattern = try NSRegularExpression(pattern: "'([^']*)': '([^']*)'")
        let text = result.out as NSString
        for match in pattern.matches(in: result.out, range: NSRange(location: 0, length: text.length)) {
            attributes[text.substring(with: match.range(at: 1))] = text.substring(with: match.range(at: 2))
        }
        // The schema, and what KeePassXC adds to every item (its entry fields, a binary
        // secret's content type), are no attributes of the item's shape.
        for name in ["xdg:schema"] + KeyringTestEnvironment.keePassXCAttributes {
            attributes[name] = nil
        }
        return attributes
    }

    /// Everything about one item: its D-Bus properties and `secret-tool search --all`'s
    /// block for it (label, secret, created and modified times). A deleted item fails.
    ///
    /// Left out: the `xdg:schema` attribute, the `Type` property and secret-tool's `schema`
    /// line. GNOME Keyring reports an item's schema only once it has re-read the collection
    /// (some time after a write, by anyone); vault never writes attributes of an existing item.
    func snapshot(_ path: String) throws -> String {
        let properties = try gdbus(path, "org.freedesktop.DBus.Properties.GetAll", ["org.freedesktop.Secret.Item"])
        guard properties.status == 0 else { return "gone: \(properties.err)" }
        let attributes = try attributes(of: path)
        let search = try run("/usr/bin/secret-tool", ["search", "--all"] + attributes.flatMap { [$0.key, $0.value] })
        let name = "[/" + (path.split(separator: "/").last ?? "") + "]"
        // The search also returns items whose attributes include these, in no fixed order;
        // a block ends with a newline only when it is the last: compare without it.
        let block =
            search.out.components(separatedBy: "\n[").map { $0.hasPrefix("[") ? $0 : "[" + $0 }
            .first { $0.hasPrefix(name + "\n") }.map { $0.hasSuffix("\n") ? String($0.dropLast()) : $0 } ?? "no secret-tool block"
        let stable = try NSRegularExpression(pattern: ", 'xdg:schema': '[^']*'|'Type': <'[^']*'>, |\nschema = [^\n]*")
        let text = properties.out + "\n" + block
        return stable.stringByReplacingMatches(in: text, range: NSRange(location: 0, length: (text as NSString).length), withTemplate: "")
    }

    // MARK: Tools

    func run(_ executable: String, _ arguments: [String], stdin: String? = nil) throws -> ProcessResult {
        try ChildProcess.start(executable, arguments, environment: environment, stdin: stdin.map { Data($0.utf8) }).finish(timeout: 30)
    }

    func gdbus(_ path: String, _ method: String, _ arguments: [String]) throws -> ProcessResult {
        try run(
            "/usr/bin/gdbus",
            ["call", "--session", "--timeout", "10", "--dest", "org.freedesktop.secrets", "--object-path", path, "--method", method]
                + arguments)
    }

    static func objectPaths(in text: String) -> [String] {
        text.components(separatedBy: "'").filter { $0.hasPrefix("/org/freedesktop/secrets/collection/") }
    }

    /// git's libsecret credential helper, compiled from the source Debian's git ships into
    /// a temporary directory (never part of this repository), or nil when that is not
    /// possible (the tests then write the same attributes with secret-tool).
    static let gitHelper: String? = {
        let source = "/usr/share/doc/git/contrib/credential/libsecret/git-credential-libsecret.c"
        let fileManager = FileManager.default
        guard fileManager.fileExists(atPath: source), fileManager.fileExists(atPath: "/usr/bin/git"),
            fileManager.fileExists(atPath: "/usr/bin/gcc")
        else {
            print("git's libsecret helper cannot be built here: writing git-style items with secret-tool")
            return nil
        }
        let output = NSTemporaryDirectory() + "vault-git-credential-libsecret-\(getpid())"
        let build = try? ChildProcess.start(
            "/bin/sh",
            [
                "-c", "gcc -O1 $(pkg-config --cflags libsecret-1 glib-2.0) -o \"$1\" \"$2\" $(pkg-config --libs libsecret-1 glib-2.0)", "sh", output,
                source,
            ],
            environment: ["PATH": "/usr/bin:/bin"]
        ).finish(timeout: 120)
        guard build?.status == 0 else {
            print("git's libsecret helper did not build (\(build?.err ?? "")): writing git-style items with secret-tool")
            return nil
        }
        return output
    }()
}
