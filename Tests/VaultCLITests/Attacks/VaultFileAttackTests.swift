// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// Attacks on the encrypted vault file: the path, the directory, the lock, the size,
/// concurrent and killed `passwd`, a person sitting at a prompt. Each: the documented
/// exit code, one line on stderr, nothing lost, no secret or passphrase printed, never a hang.
/// Every wait is asynchronous: a blocked thread of the (2-thread) concurrency pool would
/// stall the other suites' in-process servers.
@Suite("Attack: the vault file, its lock and its passphrase", .offThePool)
final class VaultFileAttackTests {
    let dir: String
    let passphrase = "current-phrase-31c7-do-not-print"
    let secret = "stored-secret-8e2a-do-not-print"

    init() throws {
        dir = try TemporaryDirectory.make(prefix: "vault-file-attack")
    }

    deinit { TemporaryDirectory.remove(dir) }

    var vaultDir: String { "\(dir)/data" }
    var vaultFile: String { "\(vaultDir)/vault.db" }

    /// File backend with the passphrase in `VAULT_PASSPHRASE`, no terminal.
    func env(_ extra: [String: String] = [:]) -> [String: String] {
        var env = VaultProcess.fileBackendEnvironment(home: dir, file: vaultFile, passphrase: passphrase)
        env["VAULT_LOCK_TIMEOUT"] = "2"
        return env.merging(extra) { $1 }
    }

    @discardableResult
    func vault(
        _ args: [String], stdin: Data? = nil, env extra: [String: String] = [:], timeout: Double = 30
    ) async throws
        -> ProcessResult
    {
        try await VaultProcess.vaultAsync(args, environment: env(extra), stdin: stdin, timeout: timeout)
    }

    func save(_ account: String, _ value: String, env extra: [String: String] = [:]) async throws -> ProcessResult {
        try await vault(["save", "--server", "s", "--account", account], stdin: Data(value.utf8), env: extra)
    }

    func load(_ account: String, env extra: [String: String] = [:]) async throws -> ProcessResult {
        try await vault(["load", "--server", "s", "--account", account], env: extra)
    }

    func file(_ name: String, _ contents: String) -> String {
        let path = "\(dir)/\(name)"
        _ = FileManager.default.createFile(atPath: path, contents: Data(contents.utf8), attributes: [.posixPermissions: 0o600])
        return path
    }

    func expectOneLine(
        _ result: ProcessResult, status: Int32, _ what: String, mentioning: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result.status == status, "\(what): exit \(result.status): \(result.err)", sourceLocation: sourceLocation)
        #expect(
            result.err.hasPrefix("vault: ") && result.err.split(separator: "\n").count == 1, "\(what): \(result.err)",
            sourceLocation: sourceLocation)
        if let mentioning { #expect(result.err.contains(mentioning), "\(what): \(result.err)", sourceLocation: sourceLocation) }
        for needle in [passphrase, secret] {
            #expect(!result.err.contains(needle) && !result.out.contains(needle), "\(what) leaked", sourceLocation: sourceLocation)
        }
    }

    var vaultBytes: Data? { FileManager.default.contents(atPath: vaultFile) }

    // MARK: passwd

    @Test("passwd with only the current passphrase's sources: exit 2, the options named, the file unchanged")
    func passwdNeedsANewPassphraseSource() async throws {
        #expect(try await save("a", secret).status == 0)
        let before = vaultBytes
        let passwd = try await vault(["passwd"])
        expectOneLine(passwd, status: 2, "passwd", mentioning: "--new-passphrase-file")
        #expect(passwd.err.contains("VAULT_NEW_PASSPHRASE_FILE"))
        #expect(vaultBytes == before, "byte for byte unchanged")
        #expect(try await load("a").out == secret)
    }

    @Test("passwd to the same passphrase is refused; VAULT_NEW_PASSPHRASE_FILE really changes it")
    func passwdSameAndEnvironment() async throws {
        #expect(try await save("a", secret).status == 0)
        let before = vaultBytes
        let same = try await vault(["passwd", "--new-passphrase-file", file("same", passphrase + "\n")])
        expectOneLine(same, status: 2, "same passphrase", mentioning: "same")
        #expect(vaultBytes == before)
        let newPassphrase = "a-new-phrase-44b0"
        let changed = try await vault(["passwd"], env: ["VAULT_NEW_PASSPHRASE_FILE": file("new", newPassphrase)])
        #expect(changed.status == 0, "\(changed.err)")
        expectOneLine(try await load("a"), status: 3, "old passphrase", mentioning: "wrong passphrase")
        #expect(try await load("a", env: ["VAULT_PASSPHRASE": newPassphrase]).out == secret)
    }

    /// Which of `candidates` open the vault with every item of `expected` intact.
    func passphrasesThatOpen(_ candidates: [String], expected: [String: String]) async throws -> [String] {
        var opening: [String] = []
        for candidate in candidates {
            let listed = try await vault(["list"], env: ["VAULT_PASSPHRASE": candidate])
            guard listed.status == 0 else { continue }
            for (account, value) in expected {
                #expect(try await load(account, env: ["VAULT_PASSPHRASE": candidate]).out == value, "\(account) lost")
            }
            opening.append(candidate)
        }
        return opening
    }

    @Test("two passwd at once: the vault opens under exactly one of the two new passphrases, items intact")
    func concurrentPasswd() async throws {
        for round in 0..<3 {
            let start = "start-\(round)-7d"
            let vaultEnv = ["VAULT_PASSPHRASE": start, "VAULT_FILE": "\(vaultDir)/round\(round).db"]
            #expect(try await vault(["save", "--server", "s", "--account", "a"], stdin: Data(secret.utf8), env: vaultEnv).status == 0)
            let first = file("first-\(round)", "first-\(round)-phrase")
            let second = file("second-\(round)", "second-\(round)-phrase")
            let running = try [first, second].map { path in
                try ChildProcess.start(VaultProcess.vaultPath, ["passwd", "--new-passphrase-file", path], environment: env(vaultEnv))
            }
            var results: [ProcessResult] = []
            for process in running { results.append(try await process.finishAsync(timeout: 30)) }
            #expect(results.contains { $0.status == 0 }, "\(results.map(\.err))")
            for result in results where result.status != 0 { expectOneLine(result, status: 3, "the slower passwd") }
            var opening: [String] = []
            for candidate in [start, "first-\(round)-phrase", "second-\(round)-phrase"] {
                let listed = try await vault(
                    ["load", "--server", "s", "--account", "a"], env: vaultEnv.merging(["VAULT_PASSPHRASE": candidate]) { $1 })
                if listed.status == 0 {
                    #expect(listed.out == secret)
                    opening.append(candidate)
                }
            }
            #expect(opening.count == 1 && opening.first != start, "round \(round): opens under \(opening)")
        }
    }

    @Test("passwd killed at random moments, mid-write included: the vault always opens under exactly one passphrase")
    func killedPasswd() async throws {
        var current = passphrase
        var expected: [String: String] = [:]
        for index in 0..<4 {
            expected["item\(index)"] = "value-\(index)"
            #expect(try await save("item\(index)", "value-\(index)").status == 0)
        }
        var generator = SystemRandomNumberGenerator()
        var killedMidWrite = 0
        for round in 0..<16 {
            let next = "round-\(round)-phrase"
            let delay = round % 2 == 0 ? "400" : "0"
            let stale = temporaryFiles()
            let process = try ChildProcess.start(
                VaultProcess.vaultPath, ["passwd", "--new-passphrase-file", file("next-\(round)", next)],
                environment: env(["VAULT_PASSPHRASE": current, "VAULT_TEST_WRITE_DELAY_MS": delay]))
            if delay != "0", await waitForNewTemporaryFile(besides: stale, limit: 10) {
                killedMidWrite += 1
            } else {
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...40, using: &generator)))
            }
            process.kill()
            _ = try await process.finishAsync()
            let opening = try await passphrasesThatOpen([current, next], expected: expected)
            #expect(opening.count == 1, "round \(round): opens under \(opening)")
            if let only = opening.first { current = only }
        }
        #expect(killedMidWrite >= 6, "kills that certainly landed mid-write: \(killedMidWrite)")
        // One more writer killed mid-write, so a stale copy is certainly there (the last
        // round's kill may have come after it removed the earlier ones).
        let stale = temporaryFiles()
        let last = try ChildProcess.start(
            VaultProcess.vaultPath, ["passwd", "--new-passphrase-file", file("next-last", "last-phrase")],
            environment: env(["VAULT_PASSPHRASE": current, "VAULT_TEST_WRITE_DELAY_MS": "400"]))
        let landed = await waitForNewTemporaryFile(besides: stale, limit: 10)
        last.kill()
        _ = try await last.finishAsync()
        #expect(landed, "the last writer was killed mid-write")
        let opening = try await passphrasesThatOpen([current, "last-phrase"], expected: expected)
        #expect(opening.count == 1, "after the last kill: opens under \(opening)")
        if let only = opening.first { current = only }
        // The killed writers' copies (each a whole vault under a passphrase now retired)
        // are gone after the next passwd, which holds the lock.
        #expect(!temporaryFiles().isEmpty, "the kills left temporary files")
        let final = "final-phrase"
        let passwd = try await vault(
            ["passwd", "--new-passphrase-file", file("final", final)], env: ["VAULT_PASSPHRASE": current])
        #expect(passwd.status == 0, "\(passwd.err)")
        #expect(temporaryFiles().isEmpty, "stale copies removed: \(temporaryFiles())")
    }

    @Test("output that cannot be written (a full disk, a closed pipe): one line, exit 4, no crash")
    func unwritableOutput() async throws {
        #expect(try await save("a", secret).status == 0)
        for (what, redirect) in [("a full disk", ">/dev/full"), ("a closed stdout", ">&-")] {
            for command in ["load --server s --account a", "list", "list --json"] {
                let result = try await ChildProcess.start(
                    "/bin/sh", ["-c", "exec \"$0\" \(command) \(redirect)", VaultProcess.vaultPath], environment: env()
                ).finishAsync(timeout: 30)
                expectOneLine(result, status: 4, "\(command) to \(what)", mentioning: "could not write to standard output")
                #expect(!result.err.contains(secret) && !result.err.contains("Fatal error"), "\(result.err)")
            }
        }
    }

    /// The writers' temporary files beside the vault now.
    func temporaryFiles() -> Set<String> {
        Set(((try? FileManager.default.contentsOfDirectory(atPath: vaultDir)) ?? []).filter { $0.hasPrefix(".vault.db.tmp-") })
    }

    /// Waits until a temporary file that is not in `stale` appears (bounded).
    func waitForNewTemporaryFile(besides stale: Set<String>, limit: Double) async -> Bool {
        let deadline = Date().addingTimeInterval(limit)
        while Date() < deadline {
            if !temporaryFiles().subtracting(stale).isEmpty { return true }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return false
    }

    // MARK: the lock

    @Test("a lock held elsewhere: save gives up within its bound naming the lock file (exit 4); reads go on")
    func heldLock() async throws {
        #expect(try await save("a", secret).status == 0)
        let holder = try ChildProcess.start("/usr/bin/flock", [vaultFile + ".lock", "sleep", "20"], environment: env())
        defer { holder.kill() }
        try await Task.sleep(for: .milliseconds(300))
        let blocked = try await vault(["save", "--server", "s", "--account", "b"], stdin: Data("x".utf8), timeout: 15)
        expectOneLine(blocked, status: 4, "held lock", mentioning: vaultFile + ".lock")
        #expect(try await load("a").out == secret, "reading needs no lock")
        #expect(try await load("b").status == 1, "nothing half-written")
    }

    @Test("a person at the passphrase prompt holds no lock: a service's save goes through meanwhile")
    func promptHoldsNoLock() async throws {
        #expect(try await save("service", "first").status == 0)
        var ttyEnv = env()
        ttyEnv["VAULT_PASSPHRASE"] = nil
        ttyEnv["TERM"] = "dumb"
        let person = try TerminalPromptCLITests.Session(["save", "--server", "s", "--account", "person"], environment: ttyEnv)
        try await person.answer("Secret for person@s:", with: "typed-by-a-person")
        try await person.waitFor("Vault passphrase:")
        let service = try await VaultProcess.vaultAsync(
            ["save", "--server", "s", "--account", "service"], environment: env(), stdin: Data("second".utf8), timeout: 15)
        #expect(service.status == 0, "the service was blocked: \(service.err)")
        try await person.answer("Vault passphrase:", with: passphrase)
        #expect(try await person.finish() == 0, "\(person.text)")
        #expect(try await load("service").out == "second")
        #expect(try await load("person").out == "typed-by-a-person")
    }

    @Test("a lock file that is a symlink or not the user's: refused, exit 4")
    func hostileLockFiles() async throws {
        #expect(try await save("a", secret).status == 0)
        let lock = vaultFile + ".lock"
        try? FileManager.default.removeItem(atPath: lock)
        symlink("\(dir)/elsewhere", lock)
        expectOneLine(try await save("b", "x"), status: 4, "symlinked lock", mentioning: "symbolic link")
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/elsewhere"), "nothing created through the link")
        unlink(lock)
        _ = FileManager.default.createFile(atPath: lock, contents: nil, attributes: [.posixPermissions: 0o600])
        chown(lock, 65534, 65534)
        expectOneLine(try await save("b", "x"), status: 4, "foreign lock", mentioning: "lock file")
        #expect(try await load("a").out == secret)
    }

    /// The first save's notice comes after the checks of the place: a refused place gets
    /// its one line, never "created a new vault file" for a file that is not created.
    @Test("a first save into a refused place: only the refusal, no 'created a new vault file'")
    func firstSaveIntoARefusedPlace() async throws {
        try FileManager.default.createDirectory(atPath: vaultDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        symlink("\(dir)/elsewhere", vaultFile + ".lock")
        expectOneLine(try await save("a", secret), status: 4, "symlinked lock, no vault yet", mentioning: "symbolic link")
        #expect(!FileManager.default.fileExists(atPath: vaultFile) && !FileManager.default.fileExists(atPath: "\(dir)/elsewhere"))
        unlink(vaultFile + ".lock")
        chmod(vaultDir, 0o777)
        expectOneLine(try await save("a", secret), status: 4, "world-writable directory, no vault yet", mentioning: "chmod go-w")
        #expect(!FileManager.default.fileExists(atPath: vaultFile))
        chmod(vaultDir, 0o700)
        let created = try await save("a", secret)
        #expect(created.status == 0 && created.err.contains("created a new vault file"), "\(created.err)")
    }

    // MARK: the path and the directory

    @Test("a symlink, a FIFO or a directory at the vault path: exit 4 at once, nothing touched")
    func nonFilesAtThePath() async throws {
        try FileManager.default.createDirectory(atPath: vaultDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let target = file("target.db", "not a vault")
        symlink(target, vaultFile)
        expectOneLine(try await load("a"), status: 4, "symlink load", mentioning: "symbolic link")
        expectOneLine(try await save("a", secret), status: 4, "symlink save", mentioning: "symbolic link")
        #expect(FileManager.default.contents(atPath: target) == Data("not a vault".utf8))
        unlink(vaultFile)

        mkfifo(vaultFile, 0o600)
        expectOneLine(try await vault(["load", "--server", "s", "--account", "a"], timeout: 10), status: 4, "FIFO load", mentioning: "FIFO")
        expectOneLine(try await vault(["save", "--server", "s", "--account", "a"], stdin: Data("x".utf8), timeout: 10), status: 4, "FIFO save")
        unlink(vaultFile)

        mkdir(vaultFile, 0o700)
        expectOneLine(try await load("a"), status: 4, "directory", mentioning: "directory")
        expectOneLine(try await save("a", secret), status: 4, "directory save")
    }

    @Test("a vault directory others can write to, or another user's: refused with the fix, exit 4")
    func unsafeDirectories() async throws {
        #expect(try await save("a", secret).status == 0)
        for mode in [0o770, 0o777, 0o1777] as [mode_t] {
            chmod(vaultDir, mode)
            expectOneLine(try await load("a"), status: 4, "mode \(String(mode, radix: 8))", mentioning: "chmod go-w")
            expectOneLine(try await save("b", "x"), status: 4, "mode \(String(mode, radix: 8)) save")
        }
        chmod(vaultDir, 0o755)
        #expect(try await load("a").out == secret, "a readable, not writable, directory is fine")
        chown(vaultDir, 65534, 65534)
        expectOneLine(try await load("a"), status: 4, "foreign directory", mentioning: "belongs to user 65534")
        chown(vaultDir, getuid(), getgid())
        #expect(try await load("a").out == secret)
    }

    @Test("a vault file over 64 MiB is refused before it is read (exit 3); garbage is refused too")
    func hugeAndGarbageFiles() async throws {
        try FileManager.default.createDirectory(atPath: vaultDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let fd = open(vaultFile, O_CREAT | O_WRONLY, 0o600)
        ftruncate(fd, off_t(65 << 20))
        close(fd)
        expectOneLine(try await load("a"), status: 3, "65 MiB file", mentioning: "larger than")
        unlink(vaultFile)
        _ = FileManager.default.createFile(
            atPath: vaultFile, contents: Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) }),
            attributes: [.posixPermissions: 0o600])
        expectOneLine(try await load("a"), status: 3, "garbage")
        expectOneLine(try await save("a", secret), status: 3, "save over garbage")
    }

    // MARK: secrets

    @Test("secrets of exactly 1 MiB and with NUL and invalid UTF-8 round-trip byte for byte; 1 MiB + 1 is refused")
    func bigAndBinarySecrets() async throws {
        var generator = SystemRandomNumberGenerator()
        var big = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        if big.last == 0x0A { big[big.count - 1] = 0x0B }
        #expect(try await vault(["save", "--server", "s", "--account", "big"], stdin: Data(big)).status == 0)
        let loaded = try await load("big")
        #expect(loaded.status == 0 && loaded.stdout == Data(big), "1 MiB byte for byte")
        let binary: [UInt8] = [0x00, 0xFF, 0xFE, 0xC3, 0x28, 0x00, 0x80, 0x41]
        #expect(try await vault(["save", "--server", "s", "--account", "bin"], stdin: Data(binary)).status == 0)
        #expect(try await load("bin").stdout == Data(binary))
        let tooBig = try await vault(["save", "--server", "s", "--account", "big"], stdin: Data(big + [0x41, 0x41]))
        expectOneLine(tooBig, status: 2, "1 MiB + 2", mentioning: "1 MiB")
        #expect(try await load("big").stdout == Data(big), "the stored one is unchanged")
    }

    // MARK: the terminal

    @Test(
        "Ctrl-C or SIGTERM at the passphrase prompt leaves echo on and no half-typed passphrase for the shell; no core dump",
        arguments: ["ctrl-c", "sigterm", "sigusr1"])
    func interruptedPrompt(how: String) async throws {
        #expect(try await save("a", secret).status == 0)
        var ttyEnv = env()
        ttyEnv["VAULT_PASSPHRASE"] = nil
        let script = #"""
            import os, pty, select, subprocess, sys, termios, time, fcntl, signal
            master, slave = pty.openpty()
            def controlling():
                os.setsid()
                fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
            child = subprocess.Popen([sys.argv[1], "load", "--server", "s", "--account", "a"], stdin=slave, stdout=slave,
                                     stderr=slave, preexec_fn=controlling, close_fds=True)
            seen, deadline = b"", time.time() + 20
            while b"passphrase" not in seen and time.time() < deadline:
                if select.select([master], [], [], 0.1)[0]:
                    seen += os.read(master, 1024)
            limits = open("/proc/%d/limits" % child.pid).read()
            core = [line for line in limits.splitlines() if line.startswith("Max core file size")][0].split()[4]
            echo_at_prompt = bool(termios.tcgetattr(slave)[3] & termios.ECHO)
            os.write(master, b"half-typed-pass")  # no newline: still in the input queue
            time.sleep(0.5)
            if sys.argv[2] == "ctrl-c":
                os.write(master, b"\x03")
            else:
                child.send_signal(signal.SIGTERM if sys.argv[2] == "sigterm" else signal.SIGUSR1)
            code = child.wait(timeout=20)
            echo_after = bool(termios.tcgetattr(slave)[3] & termios.ECHO)
            # What the shell would read next: end the line, then read it as the shell would.
            os.write(master, b"\n")
            pending = os.read(slave, 1024) if select.select([slave], [], [], 5)[0] else b"(nothing)"
            print("pending=%r" % pending)
            print("prompt=%s echo_at_prompt=%s echo_after=%s exit=%s core=%s" % (b"passphrase" in seen, echo_at_prompt, echo_after, code, core))
            """#
        let result = try await ChildProcess.start("/usr/bin/python3", ["-c", script, VaultProcess.vaultPath, how], environment: ttyEnv)
            .finishAsync(timeout: 40)
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("prompt=True echo_at_prompt=False echo_after=True"), "\(result.out) \(result.err)")
        let killedBy = ["ctrl-c": "exit=-2", "sigterm": "exit=-15", "sigusr1": "exit=-10"][how]!
        #expect(result.out.contains(killedBy), "killed by the signal: \(result.out)")
        #expect(result.out.contains("core=0"), "no core dumps: \(result.out)")
        #expect(result.out.contains("pending=b'\\n'"), "the half-typed passphrase was left for the shell: \(result.out)")
    }

    @Test(
        "Ctrl-Z, kill -TSTP or kill -STOP at the passphrase prompt: echo on while stopped, nothing for the shell; fg asks again without echo",
        arguments: ["bash", "dash"], ["ctrl-z", "kill", "sigstop"])
    func suspendedPrompt(shell: String, how: String) async throws {
        #expect(try await save("a", secret).status == 0)
        var ttyEnv = env()
        ttyEnv["VAULT_PASSPHRASE"] = nil
        ttyEnv["PS1"] = "shell-ready> "
        ttyEnv["TERM"] = "dumb"
        // The script is the terminal: it types at the pty's master end and reads what the
        // shell and vault write there. Each wait ends at 20 s, only so a hang ends.
        let script = #"""
            import os, pty, select, subprocess, sys, termios, time, fcntl, signal
            vault, shell, how, passphrase = sys.argv[1:5]
            half = passphrase[:len(passphrase) // 2]
            master, slave = pty.openpty()
            def controlling():
                os.setsid()
                fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
            argv = ["bash", "--norc", "--noprofile", "--noediting", "-i"] if shell == "bash" else ["dash", "-i"]
            sh = subprocess.Popen(argv, executable="/bin/" + shell, stdin=slave, stdout=slave, stderr=slave,
                                  preexec_fn=controlling, close_fds=True)
            seen = b""
            def wait_for(text, count=1):
                global seen
                deadline = time.time() + 20
                while seen.count(text) < count and time.time() < deadline:
                    if select.select([master], [], [], 0.1)[0]:
                        try:
                            seen += os.read(master, 4096)
                        except OSError:
                            break
                return seen.count(text) >= count
            def echo():
                return bool(termios.tcgetattr(slave)[3] & termios.ECHO)
            def state(pid):
                if pid is None:
                    return "(no vault)"
                with open("/proc/%d/stat" % pid) as f:
                    return f.read().rsplit(")", 1)[1].split()[0]
            def vault_pid():
                for name in os.listdir("/proc"):
                    try:
                        with open("/proc/%s/stat" % name) as f:
                            fields = f.read().rsplit(")", 1)[1].split()
                        if name.isdigit() and int(fields[1]) == sh.pid:
                            return int(name)
                    except OSError:
                        pass
                return None
            ready = wait_for(b"shell-ready> ")
            os.write(master, b"%s load --server s --account a\n" % vault.encode())
            prompt = wait_for(b"Vault passphrase: ")
            pid = vault_pid()
            echo_at_prompt = echo()
            if how != "sigstop":  # SIGSTOP cannot be caught: what is typed before it is the shell's
                os.write(master, half.encode())  # no newline: still in the input queue
            time.sleep(0.5)
            if how == "ctrl-z":
                os.write(master, b"\x1a")
            elif pid is not None:
                os.kill(pid, signal.SIGSTOP if how == "sigstop" else signal.SIGTSTP)
            # The shell has the terminal again: a new prompt, vault stopped, the shell in front.
            shell_back = wait_for(b"shell-ready> ", 2)
            stopped = state(pid) == "T"
            shell_in_front = os.tcgetpgrp(master) == sh.pid
            echo_stopped = echo()
            os.write(master, b"fg\n")
            asked_again = wait_for(b"Vault passphrase: ", 2)
            echo_after_fg = echo()
            os.write(master, passphrase.encode() + b"\n")
            loaded = wait_for(sys.argv[5].encode())
            os.write(master, b"echo vault-status=$?\n")
            status = wait_for(b"vault-status=0")
            os.write(master, b"exit\n")
            try:
                sh.wait(timeout=20)
            except subprocess.TimeoutExpired:
                sh.kill()
            if pid is not None and os.path.exists("/proc/%d" % pid):
                os.kill(pid, signal.SIGKILL)
            print("ready=%s prompt=%s echo_at_prompt=%s" % (ready, prompt, echo_at_prompt))
            print("shell_back=%s stopped=%s shell_in_front=%s echo_stopped=%s" % (shell_back, stopped, shell_in_front, echo_stopped))
            print("asked_again=%s echo_after_fg=%s loaded=%s status=%s" % (asked_again, echo_after_fg, loaded, status))
            print("half_seen=%s passphrase_seen=%s not_found=%s" % (half.encode() in seen, passphrase.encode() in seen, b"not found" in seen))
            print("transcript=%r" % seen)
            """#
        let result = try await ChildProcess.start(
            "/usr/bin/python3", ["-c", script, VaultProcess.vaultPath, shell, how, passphrase, secret], environment: ttyEnv
        ).finishAsync(timeout: 150)
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("ready=True prompt=True echo_at_prompt=False"), "\(result.out)")
        // After SIGSTOP (uncaught) echo is whatever the shell makes it; the rest holds.
        let back =
            how == "sigstop"
            ? "shell_back=True stopped=True shell_in_front=True" : "shell_back=True stopped=True shell_in_front=True echo_stopped=True"
        #expect(result.out.contains(back), "the shell has the terminal with echo on while vault is stopped: \(result.out)")
        #expect(result.out.contains("asked_again=True echo_after_fg=False"), "after fg, asked again without echo: \(result.out)")
        #expect(result.out.contains("loaded=True status=True"), "the whole passphrase typed after fg opened the vault: \(result.out)")
        #expect(result.out.contains("half_seen=False passphrase_seen=False"), "the passphrase was shown on the terminal: \(result.out)")
        #expect(result.out.contains("not_found=False"), "the shell ran the half-typed passphrase: \(result.out)")
    }
}
