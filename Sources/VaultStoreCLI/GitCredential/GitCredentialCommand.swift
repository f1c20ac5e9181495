// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import FoundationEssentials
import VaultStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `git-credential-vault [STORE OPTIONS] get|store|erase`: git's credential helper, so
/// `git config --global credential.helper vault` keeps git's passwords in vault.
///
/// The credential comes on standard input (`key=value` lines, see ``GitCredentialMessage``);
/// `get` answers on standard output. When no vault can be opened (a locked keyring, no
/// passphrase source and no terminal, an unreadable file), `get` prints nothing, says why in
/// one line on stderr, and exits 0, so git asks its next helper or the user. An operation
/// git may add later is ignored, as the protocol asks.
public struct GitCredentialCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "git-credential-vault",
        abstract: "git's credential helper: keeps git's passwords in vault.",
        discussion: """
            Set it up with `git config --global credential.helper vault` (store options may \
            follow: `credential.helper "vault --backend file"`). git runs it with get, store \
            or erase and the credential on standard input. Items are those of \
            `vault save --server PROTOCOL://HOST[:PORT][/PATH] --account USER`, and on the \
            Secret Service the ones git's own libsecret helper reads and writes.
            """,
        version: CommandLineSummary.version)

    @OptionGroup var store: StoreOptions

    @Argument(help: "get, store or erase (anything else is ignored).")
    var operation: String

    public init() {}

    public static func main(arguments: [String]) -> Never {
        ArgumentText.requireUTF8()
        AuthExecutable.forgetHandOver()
        ProcessHardening.apply()
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
            Terminal.exit(ExitStatus.success)
        } catch {
            CommandLineSummary.exit(after: error, of: Self.self)
        }
    }

    public func run() throws {
        guard ["get", "store", "erase"].contains(operation) else { return }
        let message: GitCredentialMessage
        do throws(VaultError) {
            message = try GitCredentialMessage(parsing: Self.readMessage())
        } catch {
            try reportingErrors { () throws(VaultError) in throw error }
            return
        }
        if operation == "get" {
            do throws(VaultError) {
                let helper = GitCredentialHelper(store: try store.openStore())
                if let reply = try helper.get(message) { Terminal.write(reply.reply) }
            } catch {
                Terminal.note("\(error.description); git will ask its next helper")
            }
            return
        }
        try reportingErrors { () throws(VaultError) in
            let helper = GitCredentialHelper(store: try store.openStore())
            if operation == "store" { try helper.store(message) } else { try helper.erase(message) }
        }
    }

    /// Standard input up to the blank line that ends a message (or its end), at most
    /// ``GitCredentialMessage/byteLimit`` bytes.
    static func readMessage() throws(VaultError) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(STDIN_FILENO, $0.baseAddress!, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n < 0 { throw .invalidInput("cannot read the credential from standard input: \(String(cString: strerror(errno)))") }
            if n == 0 { return bytes }
            let searchFrom = max(bytes.count - 1, 0)  // a blank line may straddle two reads
            bytes.append(contentsOf: buffer[0..<n])
            guard bytes.count <= GitCredentialMessage.byteLimit else {
                throw .invalidInput("git sent more than \(GitCredentialMessage.byteLimit >> 20) MiB; that is not a credential")
            }
            if bytes.first == 0x0A || bytes[searchFrom...].firstRange(of: [0x0A, 0x0A]) != nil { return bytes }
        }
    }
}
