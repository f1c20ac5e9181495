// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

@testable import VaultAgent

/// Where a token file may be (ssh's StrictModes), on real directories, links and files.
@Suite("Token file places", .offThePool)
struct TokenFilePlaceTests {
    /// `directory/name`, made with `mode` (chmod, so the umask does not narrow it).
    static func directory(_ parent: String, _ name: String, mode: mode_t) -> String {
        let path = parent + "/" + name
        mkdir(path, 0o700)
        chmod(path, mode)
        return path
    }

    @Test("a private directory is a place; a shared one is not, sticky or not, but may lie above one with its sticky bit")
    func sharedDirectories() throws {
        try withTemporaryDirectory("token-place") { base in
            let mine = Self.directory(base, "mine", mode: 0o700)
            #expect(TokenFilePlace.unsafe(mine + "/api.token") == nil)
            // Like /tmp: anyone may create a name there first.
            let sticky = Self.directory(base, "sticky", mode: 0o1777)
            let direct = TokenFilePlace.unsafe(sticky + "/api.token")
            #expect(direct?.contains("others can write in its directory \(sticky)") == true, "\(direct ?? "nil")")
            // A directory of one's own inside it: nobody else can replace it.
            let inside = Self.directory(sticky, "own", mode: 0o700)
            #expect(TokenFilePlace.unsafe(inside + "/api.token") == nil)
            // Shared without the sticky bit, above: anyone could rename `own` away and put theirs.
            let open = Self.directory(base, "open", mode: 0o777)
            let below = Self.directory(open, "own", mode: 0o700)
            let reason = TokenFilePlace.unsafe(below + "/api.token")
            #expect(reason?.contains("\(open) without its sticky bit") == true, "\(reason ?? "nil")")
            let groupWritable = Self.directory(base, "group", mode: 0o770)
            #expect(TokenFilePlace.unsafe(groupWritable + "/api.token") != nil)
            // Missing: refused, since whoever creates it first owns it (attack review 47).
            let missing = TokenFilePlace.unsafe(mine + "/missing/api.token")
            #expect(missing == "the directory \(mine)/missing does not exist", "\(missing ?? "nil")")
            try FileManager.default.createSymbolicLink(atPath: mine + "/dangling", withDestinationPath: mine + "/gone")
            #expect(TokenFilePlace.unsafe(mine + "/dangling/api.token") != nil)
            let file = mine + "/file"
            #expect(FileManager.default.createFile(atPath: file, contents: Data()))
            #expect(TokenFilePlace.unsafe(file + "/api.token")?.contains("is not a directory") == true)
        }
    }

    @Test("links on the way are followed: the target's directories and every link of a chain are checked")
    func links() throws {
        try withTemporaryDirectory("token-place") { base in
            let mine = Self.directory(base, "mine", mode: 0o700)
            let open = Self.directory(base, "open", mode: 0o777)
            try FileManager.default.createSymbolicLink(atPath: base + "/to-mine", withDestinationPath: mine)
            try FileManager.default.createSymbolicLink(atPath: base + "/to-open", withDestinationPath: "open")
            #expect(TokenFilePlace.unsafe(base + "/to-mine/api.token") == nil)
            let reason = TokenFilePlace.unsafe(base + "/to-open/api.token")
            #expect(reason?.contains(open) == true, "\(reason ?? "nil")")
            // A chain through a shared directory: the link there could be pointed elsewhere by its owner.
            try FileManager.default.createSymbolicLink(atPath: open + "/hop", withDestinationPath: mine)
            try FileManager.default.createSymbolicLink(atPath: mine + "/via-open", withDestinationPath: open + "/hop")
            #expect(TokenFilePlace.unsafe(mine + "/via-open/api.token") != nil)
        }
    }

    /// Attack review 47: the target was decoded with U+FFFD in place of the bad byte, the
    /// repaired name did not exist, and the walk took the place as safe.
    @Test("a link whose target is not UTF-8 is refused, not checked under a repaired name")
    func linkToANameThatIsNotUTF8() throws {
        try withTemporaryDirectory("token-place") { base in
            let shared: [CChar] = Array((base + "/ax").utf8CString.dropLast()) + [CChar(bitPattern: 0xFF), 0]
            #expect(mkdir(shared, 0o777) == 0 && chmod(shared, 0o777) == 0)
            #expect(symlink(shared, base + "/link") == 0)
            let reason = TokenFilePlace.unsafe(base + "/link/api.token")
            #expect(reason?.contains("cannot be read as a UTF-8 path") == true, "\(reason ?? "nil")")
        }
    }

    @Test(
        "a directory or a link of another user is refused (as root: chown to nobody)",
        .enabled(if: getuid() == 0, "needs root to give a directory away"))
    func anotherUsersDirectory() throws {
        try withTemporaryDirectory("token-place") { base in
            let theirs = Self.directory(base, "theirs", mode: 0o755)
            #expect(chown(theirs, 65534, 65534) == 0)
            let reason = TokenFilePlace.unsafe(theirs + "/api.token")
            #expect(reason?.contains("belongs to user 65534") == true, "\(reason ?? "nil")")
            let mine = Self.directory(base, "mine", mode: 0o700)
            try FileManager.default.createSymbolicLink(atPath: base + "/their-link", withDestinationPath: mine)
            #expect(lchown(base + "/their-link", 65534, 65534) == 0)
            let link = TokenFilePlace.unsafe(base + "/their-link/api.token")
            #expect(link?.contains("the link \(base)/their-link belongs to user 65534") == true, "\(link ?? "nil")")
        }
    }

    @Test("vault's own files are refused by path, through a linked directory, and by another name of the same file")
    func ownFiles() throws {
        try withTemporaryDirectory("token-place") { base in
            let vault = base + "/vault.db"
            #expect(FileManager.default.createFile(atPath: vault, contents: Data("vault".utf8)))
            let locks = Self.directory(base, "locks", mode: 0o700)
            let own = TokenFilePlace.OwnPlaces(
                files: [(what: "the vault file", path: vault), (what: "a passphrase file", path: base + "/absent-passphrase")],
                directories: [(what: "vault's lock directory", path: locks)], lockFileDirectories: [(base, "vault.db")])
            #expect(TokenFilePlace.ownFile(vault, among: own) == "it is the vault file")
            try FileManager.default.createSymbolicLink(atPath: base + "/alias", withDestinationPath: base)
            #expect(TokenFilePlace.ownFile(base + "/alias/vault.db", among: own) == "it is the vault file")
            #expect(link(vault, base + "/hard") == 0)
            #expect(TokenFilePlace.ownFile(base + "/hard", among: own) == "it is the vault file (another name of the same file)")
            #expect(TokenFilePlace.ownFile(base + "/absent-passphrase", among: own) == "it is a passphrase file")
            #expect(TokenFilePlace.ownFile(base + "/api.token", among: own) == nil)
            // Attack review 47: a lock file replaced by a token is a new file, so two processes
            // could each hold "the" lock and refresh at once.
            #expect(TokenFilePlace.ownFile(locks + "/item-1f.lock", among: own) == "it is in vault's lock directory, \(locks)")
            #expect(TokenFilePlace.ownFile(locks + "/sub/api.token", among: own) == "it is in vault's lock directory, \(locks)")
            #expect(
                TokenFilePlace.ownFile(base + "/refresh-9a0b.lock", among: own) == "it is one of vault's lock or temporary files (refresh-9a0b.lock)")
            #expect(TokenFilePlace.ownFile(base + "/alias/item-3.lock", among: own) == "it is one of vault's lock or temporary files (item-3.lock)")
            #expect(TokenFilePlace.ownFile(base + "/locks-not/api.token", among: own) == nil, "a name that only begins like it")
            // Attack review 48: the lock directory's own name, and the vault's temporary files (its clean-up deletes them).
            #expect(TokenFilePlace.ownFile(locks, among: own) == "it is in vault's lock directory, \(locks)")
            #expect(TokenFilePlace.ownFile(base + "/.vault.db.tmp-Ab12Cd", among: own)?.contains("temporary files") == true)
        }
    }

    /// Attack review 48, finding 2: the own-file check ran only at start; a link on the way
    /// repointed at the vault's directory later let a write replace the vault file.
    @Test("before each write, vault's own files are refused by the open directory's identity, and a socket at the name is refused")
    func ownFilesAtEachWrite() throws {
        try withTemporaryDirectory("token-place") { base in
            let vaultDirectory = Self.directory(base, "v", mode: 0o700)
            let vault = vaultDirectory + "/vault.db"
            #expect(FileManager.default.createFile(atPath: vault, contents: Data("vault".utf8)))
            let tokens = Self.directory(base, "tokens", mode: 0o700)
            try FileManager.default.createSymbolicLink(atPath: base + "/link", withDestinationPath: tokens)
            let own = TokenFilePlace.OwnPlaces(files: [(what: "the vault file", path: vault)], lockFileDirectories: [(vaultDirectory, "vault.db")])
            let path = base + "/link/vault.db"
            #expect(TokenFilePlace.ownFile(path, among: own) == nil, "at the start it is a file of its own")
            // Repointed: the same path now names the vault file.
            #expect(unlink(base + "/link") == 0)
            try FileManager.default.createSymbolicLink(atPath: base + "/link", withDestinationPath: vaultDirectory)
            let fd = open(vaultDirectory, O_RDONLY | O_DIRECTORY)
            defer { close(fd) }
            #expect(TokenFilePlace.approval(for: path, own: own)(fd, base + "/link") == "it is the vault file")
            var info = stat()
            #expect(fstat(fd, &info) == 0)
            #expect(own.holds("vault.db", inDirectory: info) == "it is the vault file", "by identity alone")
            #expect(own.holds("refresh-1.lock", inDirectory: info)?.contains("lock or temporary") == true)
            #expect(own.holds("api.token", inDirectory: info) == nil)
            // Another agent's socket (or any socket) at the name is never replaced.
            let socketPath = tokens + "/s"
            let socketFD = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(socketFD) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                for (index, byte) in socketPath.utf8.enumerated() { buffer[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            #expect(bound == 0)
            let tokensFD = open(tokens, O_RDONLY | O_DIRECTORY)
            defer { close(tokensFD) }
            #expect(TokenFilePlace.approval(for: socketPath)(tokensFD, tokens) == "something other than a file is at its name (a socket)")
        }
    }

    /// Attack review 48, finding 4: a token file named after another vault file of the
    /// user (not the agent's own) replaced it with a token.
    @Test("only a token file, an empty file or a link is replaced: another vault file, a passphrase, a script are refused and kept")
    func onlyTokenFilesAreReplaced() throws {
        try withTemporaryDirectory("token-place") { base in
            let mine = Self.directory(base, "mine", mode: 0o700)
            let magic: [UInt8] = [0x89, 0x56, 0x4C, 0x54, 0x0D, 0x0A, 0x1A, 0x0A, 0, 1, 0xFF]
            let refused: [(String, [UInt8])] = [
                ("other.vault", magic), ("passphrase", Array("hunter2-hunter2\n".utf8)),
                ("script", Array("#!/bin/sh\necho hi\n".utf8)), ("big", [UInt8](repeating: 0x41, count: 16 * 1024 + 1)),
            ]
            for (name, content) in refused {
                let path = mine + "/" + name
                #expect(FileManager.default.createFile(atPath: path, contents: Data(content)))
                let reason = "the file at its name holds something other than a token, and vault replaces only its own token files"
                #expect(TokenFilePlace.occupied(path) == reason, "\(name)")
                #expect(throws: TokenFile.Failure.self) {
                    try TokenFile.write(Array("new-token".utf8), to: path, approve: TokenFilePlace.approval(for: path))
                }
                #expect(FileManager.default.contents(atPath: path).map(Array.init) == content, "\(name) was changed")
            }
            let replaced: [(String, [UInt8])] = [("api.token", Array("eyJ.old-token_~".utf8)), ("empty", []), ("absent", [])]
            for (name, content) in replaced {
                let path = mine + "/" + name
                if name != "absent" { #expect(FileManager.default.createFile(atPath: path, contents: Data(content))) }
                #expect(TokenFilePlace.occupied(path) == nil, "\(name)")
                try TokenFile.write(Array("new-token".utf8), to: path, approve: TokenFilePlace.approval(for: path))
                #expect(FileManager.default.contents(atPath: path).map(Array.init) == Array("new-token".utf8))
            }
            // Attack review 49, finding 3: a passphrase file without a newline made read-only, and
            // another vault's (empty) lock file, look like tokens; neither is replaced.
            let readOnly = mine + "/other.passphrase"
            #expect(FileManager.default.createFile(atPath: readOnly, contents: Data("nospacepass".utf8), attributes: [.posixPermissions: 0o400]))
            #expect(TokenFilePlace.occupied(readOnly)?.contains("read-only") == true)
            let otherLock = mine + "/other.db.lock"
            #expect(FileManager.default.createFile(atPath: otherLock, contents: Data()))
            #expect(TokenFilePlace.occupied(otherLock)?.contains("lock file") == true)
            for path in [readOnly, otherLock] {
                #expect(throws: TokenFile.Failure.self) {
                    try TokenFile.write(Array("new-token".utf8), to: path, approve: TokenFilePlace.approval(for: path))
                }
            }
            #expect(FileManager.default.contents(atPath: readOnly) == Data("nospacepass".utf8))
            #expect(FileManager.default.contents(atPath: otherLock) == Data())
            // A link is replaced, its target (a file of the user's) left alone.
            let target = mine + "/notes.txt"
            #expect(FileManager.default.createFile(atPath: target, contents: Data("my notes\n".utf8)))
            #expect(symlink(target, mine + "/linked") == 0)
            #expect(TokenFilePlace.occupied(mine + "/linked") == nil)
            try TokenFile.write(Array("new-token".utf8), to: mine + "/linked", approve: TokenFilePlace.approval(for: mine + "/linked"))
            #expect(try String(contentsOfFile: target, encoding: .utf8) == "my notes\n")
        }
    }

    @Test("the check before a write is made on the directory the write uses: one swapped in after the walk is refused")
    func swappedDirectory() throws {
        try withTemporaryDirectory("token-place") { base in
            let mine = Self.directory(base, "mine", mode: 0o700)
            let path = mine + "/api.token"
            let approval = TokenFilePlace.approval(for: path)
            let fd = open(mine, O_RDONLY | O_DIRECTORY)
            #expect(fd >= 0)
            defer { close(fd) }
            #expect(approval(fd, mine) == nil)
            // The directory opened is no longer the one at the path.
            #expect(rename(mine, base + "/moved") == 0)
            _ = Self.directory(base, "mine", mode: 0o700)
            #expect(approval(fd, mine) == "\(mine) changed while it was checked")
            // The same directory turned group-writable after the walk passed it.
            let other = Self.directory(base, "other", mode: 0o700)
            let otherFD = open(other, O_RDONLY | O_DIRECTORY)
            defer { close(otherFD) }
            #expect(fchmod(otherFD, 0o770) == 0)
            #expect(approval(otherFD, other) != nil)
            #expect(TokenFilePlace.approval(for: other + "/api.token")(otherFD, other)?.contains("others can write") == true)
        }
    }
}
