import Foundation
import Testing

/// The terminal prompts of `vault`, on a real pseudo-terminal (`script` from util-linux
/// gives the child a controlling tty). Each answer is typed only after its prompt shows,
/// the way a person would.
@Suite struct TerminalPromptCLITests {
    /// A `vault` process on a pty: what it shows, and a way to type into it.
    final class Session: @unchecked Sendable {
        let process = Process()
        private let input = Pipe()
        private let output = Pipe()
        private let lock = NSLock()
        private var shown = Data()

        init(_ arguments: [String], environment: [String: String]) throws {
            let command = ([VaultProcess.vaultPath] + arguments).map { "'\($0)'" }.joined(separator: " ")
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
            process.arguments = ["--wait", "script", "-qec", command, "/dev/null"]
            process.environment = environment
            process.standardInput = input
            process.standardOutput = output
            process.standardError = output
            try process.run()
            let handle = output.fileHandleForReading
            Thread.detachNewThread { [self] in
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    lock.withLock { shown.append(chunk) }
                }
            }
        }

        var text: String { lock.withLock { String(decoding: shown, as: UTF8.self) } }

        /// Waits (at most 20 s) until `prompt` has been shown `occurrence` times, then types `line`.
        func answer(_ prompt: String, with line: String, occurrence: Int = 1) async throws {
            let deadline = Date().addingTimeInterval(20)
            while text.components(separatedBy: prompt).count - 1 < occurrence {
                guard Date() < deadline, process.isRunning else {
                    Issue.record("no prompt \"\(prompt)\" in: \(text)")
                    return
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            input.fileHandleForWriting.write(Data((line + "\n").utf8))
        }

        /// Waits (at most 20 s) until `prompt` has been shown, without typing anything.
        func waitFor(_ prompt: String) async throws {
            let deadline = Date().addingTimeInterval(20)
            while !text.contains(prompt) {
                guard Date() < deadline, process.isRunning else {
                    Issue.record("no prompt \"\(prompt)\" in: \(text)")
                    return
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        }

        func finish() async throws -> Int32 {
            let deadline = Date().addingTimeInterval(20)
            while process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            try? await Task.sleep(for: .milliseconds(50))
            return process.terminationStatus
        }
    }

    @Test func saveAsksForTheSecretAndTwiceForANewPassphraseWithoutEcho() async throws {
        var template = Array("\(NSTemporaryDirectory())/vault-pty-XXXXXX".utf8CString)
        let dir = String(cString: mkdtemp(&template)!)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var env = VaultProcess.baseEnvironment(home: dir)
        env["VAULT_BACKEND"] = "file"
        env["VAULT_FILE"] = "\(dir)/vault.db"
        env["TERM"] = "dumb"

        let save = try Session(["save", "--server", "s", "--account", "a"], environment: env)
        try await save.answer("Secret for a@s:", with: "typed-secret-4d1")
        try await save.answer("New vault passphrase:", with: "typed-passphrase-9c2")
        try await save.answer("Repeat it:", with: "typed-passphrase-9c2")
        #expect(try await save.finish() == 0, "\(save.text)")
        #expect(!save.text.contains("typed-secret-4d1"), "the secret was echoed")
        #expect(!save.text.contains("typed-passphrase-9c2"), "the passphrase was echoed")

        let load = try Session(["load", "--server", "s", "--account", "a"], environment: env)
        try await load.answer("Vault passphrase:", with: "typed-passphrase-9c2")
        #expect(try await load.finish() == 0, "\(load.text)")
        #expect(load.text.contains("typed-secret-4d1"), "load prints the secret (with a newline on a terminal)")
        #expect(!load.text.contains("typed-passphrase-9c2"))

        let mismatch = try Session(["save", "--server", "s", "--account", "b"], environment: env.merging(["VAULT_FILE": "\(dir)/other.db"]) { $1 })
        try await mismatch.answer("Secret for a@s:".replacingOccurrences(of: "a@s", with: "b@s"), with: "x")
        try await mismatch.answer("New vault passphrase:", with: "one")
        try await mismatch.answer("Repeat it:", with: "two")
        #expect(try await mismatch.finish() == 2)
        #expect(mismatch.text.contains("the two passphrases differ"))
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/other.db"))
    }
}
