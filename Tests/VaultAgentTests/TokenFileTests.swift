// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

@testable import VaultAgent

/// The token file's atomic replacement, on its own.
@Suite("Token file", .offThePool)
struct TokenFileTests {
    @Test("a write replaces the file whole, 0600, and leaves what others put beside it alone")
    func writeReplacesWhole() throws {
        try withTemporaryDirectory("token-file") { directory in
            let path = directory + "/token"
            // Files under names a write might pick: never opened, never removed.
            let planted = directory + "/.token.vault-0000000000000000"
            try FileManager.default.createSymbolicLink(atPath: planted, withDestinationPath: directory + "/elsewhere")
            try TokenFile.write(Array("first".utf8), to: path, approve: Self.any)
            try TokenFile.write(Array("second-token".utf8), to: path, approve: Self.any)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "second-token")
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o600)
            #expect(Set(try FileManager.default.contentsOfDirectory(atPath: directory)) == ["token", ".token.vault-0000000000000000"])
            #expect(!FileManager.default.fileExists(atPath: directory + "/elsewhere"))
        }
    }

    @Test("removal: true when a file was there, false when none; a failure names the path, never the token")
    func removalAndFailures() throws {
        try withTemporaryDirectory("token-file") { directory in
            let path = directory + "/token"
            try TokenFile.write(Array("tok".utf8), to: path, approve: Self.any)
            #expect(try TokenFile.remove(path, approve: Self.any))
            #expect(try !TokenFile.remove(path, approve: Self.any))
            #expect(try !TokenFile.remove(directory + "/missing/token", approve: Self.any))
            do throws(TokenFile.Failure) {
                try TokenFile.write(Array("secret-token".utf8), to: directory + "/missing/token", approve: Self.any)
                Issue.record("a write into a missing directory succeeded")
            } catch {
                #expect(error.description.contains(directory + "/missing/"))
                #expect(!error.description.contains("secret-token"))
            }
        }
    }

    @Test("a refused directory is neither written to nor removed from, and the refusal is the failure")
    func refusal() throws {
        try withTemporaryDirectory("token-file") { directory in
            let path = directory + "/token"
            try TokenFile.write(Array("kept".utf8), to: path, approve: Self.any)
            var asked: [String] = []
            let refuse: TokenFile.Approval = { _, name in
                asked.append(name)
                return "not today"
            }
            #expect(throws: TokenFile.Failure.self) { try TokenFile.write(Array("new".utf8), to: path, approve: refuse) }
            do throws(TokenFile.Failure) {
                try TokenFile.remove(path, approve: refuse)
                Issue.record("a refused removal went ahead")
            } catch {
                #expect(error.description == "refusing \(path): not today")
            }
            #expect(asked == [directory, directory])
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "kept")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["token"], "no temporary file left")
        }
    }

    /// Approves every directory.
    static func any(_ descriptor: Int32, _ directory: String) -> String? { nil }

    @Test("split: directory and name")
    func split() {
        #expect(TokenFile.split("/run/user/1/token") == ("/run/user/1", "token"))
        #expect(TokenFile.split("/token") == ("/", "token"))
        #expect(TokenFile.split("token") == (".", "token"))
    }
}
