// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import Testing
import VaultTestSupport

/// Issue 23 §6, "smaller promises": device-grant URIs, headers across origins, secret files,
/// one rule for private directories, what logout and whoami say, and a closed stdout.
@Suite("SmallPromises: the device grant's verification URIs", .offThePool)
struct DeviceVerificationURITests {
    /// A device endpoint that answers with `verification` (and `complete`), and a token
    /// endpoint that denies, so a vault that goes on polling ends quickly.
    func deviceLogin(verification: String, complete: String? = nil) async throws -> (ProcessResult, HostileServer) {
        let body = """
            {"device_code":"device-code-1","user_code":"WDJB-MJHT","verification_uri":"\(verification)",\
            \(complete.map { "\"verification_uri_complete\":\"\($0)\"," } ?? "")"expires_in":30,"interval":1}
            """
        let provider = try HostileServer { request in
            request.target == "/device"
                ? HostileServer.response(200, body) : HostileServer.response(400, "{\"error\":\"access_denied\"}")
        }
        let fixture = try HostileFixture(server: provider.url)
        defer { fixture.remove() }
        let result = try await fixture.vault(
            [
                "login", "--provider", "oauth2", "--token-url", provider.url + "/token", "--device-url", provider.url + "/device",
                "--client-id", "cli", "--device",
            ], timeout: 30)
        provider.stop()
        return (result, provider)
    }

    @Test(
        "a verification URI with user info or plain http to a remote host: exit 5, one line, never shown, never polled",
        arguments: [
            ("http://accounts.example.com@evil.example/device", nil),
            ("https://accounts.example.com@evil.example/device", nil),
            ("https://accounts.example.com:x@evil.example/device", nil),
            ("http://evil.example/device", nil),
            ("https://accounts.example.com/device", "https://accounts.example.com@evil.example/device?user_code=WDJB-MJHT"),
            ("https://accounts.example.com/device", "http://evil.example/device?user_code=WDJB-MJHT"),
        ] as [(String, String?)])
    func hostileVerificationURIs(verification: String, complete: String?) async throws {
        let (result, provider) = try await deviceLogin(verification: verification, complete: complete)
        #expect(result.status == 5, "\(verification) \(complete ?? ""): exit \(result.status) \(result.err)")
        #expect(result.err.hasPrefix("vault: ") && result.err.split(separator: "\n").count == 1, "\(result.err)")
        #expect(!result.err.contains("evil.example"), "the URI is never shown: \(result.err)")
        #expect(!result.err.contains("WDJB-MJHT"), "nor the code that goes with it")
        #expect(provider.received.allSatisfy { $0.target == "/device" }, "the token endpoint was never polled")
    }

    @Test("an https URI without user info is shown as sent")
    func httpsIsShown() async throws {
        let (result, _) = try await deviceLogin(
            verification: "https://accounts.example.com/device", complete: "https://accounts.example.com/device?user_code=WDJB-MJHT")
        #expect(result.status == 3, "denied by the stand-in token endpoint: \(result.err)")
        #expect(result.err.contains("open https://accounts.example.com/device on any device and enter the code WDJB-MJHT"))
        #expect(result.err.contains("(or open https://accounts.example.com/device?user_code=WDJB-MJHT)"))
    }
}

@Suite("SmallPromises: a redirect to another origin keeps only the safe headers", .offThePool)
struct CrossOriginHeaderTests {
    @Test("X-Api-Key and other headers of the caller's stay home; Accept, Accept-Language and User-Agent go along")
    func callerHeadersStayHome() async throws {
        let other = try HostileServer { _ in HostileServer.response(200, "{\"landed\":true}") }
        defer { other.stop() }
        let origin = try HostileServer { request in
            switch request.target {
            case "/api/login": HostileServer.tokens()
            case "/go": HostileServer.redirect(302, to: "http://127.0.0.1:\(other.port)/landed")
            case "/same": HostileServer.redirect(302, to: "/final")
            default: HostileServer.response(200, "{\"final\":true}")
            }
        }
        defer { origin.stop() }
        let fixture = try HostileFixture(server: origin.url)
        defer { fixture.remove() }
        #expect(try await fixture.vault(["login"], stdin: "pw").status == 0)
        let headers = [
            "-H", "X-Api-Key: api-key-0f3c", "-H", "X-Custom: custom-7a", "-H", "Accept: application/json", "-H",
            "Accept-Language: en", "-H", "User-Agent: vault-test",
        ]
        let away = try await fixture.vault(["request"] + headers + ["/go"])
        #expect(away.status == 0 && away.out.contains("landed"), "\(away.err)")
        let landed = try #require(other.received.first)
        #expect(landed.header("X-Api-Key") == nil && landed.header("X-Custom") == nil, "\(landed.headers)")
        #expect(landed.header("Authorization") == nil)
        #expect(landed.header("Accept") == "application/json" && landed.header("Accept-Language") == "en")
        #expect(landed.header("User-Agent") == "vault-test")

        let same = try await fixture.vault(["request"] + headers + ["/same"])
        #expect(same.status == 0 && same.out.contains("final"), "\(same.err)")
        let final = try #require(origin.received.last { $0.target == "/final" })
        #expect(final.header("X-Api-Key") == "api-key-0f3c", "within the origin the caller's headers stay")
    }
}

@Suite("SmallPromises: files that hold a secret", .offThePool)
struct SecretFileTests {
    static let passphrase = "secret-file passphrase 51"

    /// A vault with one item, opened through `VAULT_PASSPHRASE`; `body` gets the environment
    /// without it.
    func withVault(_ body: (HostileFixture, [String: String]) async throws -> Void) async throws {
        let fixture = try HostileFixture(server: "api.example.com")
        defer { fixture.remove() }
        var environment = fixture.environment
        environment["VAULT_PASSPHRASE"] = Self.passphrase
        let save = try await VaultProcess.vaultAsync(
            ["save", "--server", "api.example.com", "--account", "alice"], environment: environment, stdin: Data("s3cret".utf8))
        #expect(save.status == 0, "\(save.err)")
        environment["VAULT_PASSPHRASE"] = nil
        try await body(fixture, environment)
    }

    func file(_ fixture: HostileFixture, _ name: String, _ contents: String, mode: Int) -> String {
        let path = "\(fixture.dir)/\(name)"
        _ = FileManager.default.createFile(atPath: path, contents: Data(contents.utf8), attributes: [.posixPermissions: mode])
        chmod(path, mode_t(mode))
        return path
    }

    func load(_ environment: [String: String], _ extra: [String] = [], stdin: Data? = nil) async throws -> ProcessResult {
        try await VaultProcess.vaultAsync(
            ["load", "--server", "api.example.com", "--account", "alice"] + extra, environment: environment, stdin: stdin)
    }

    func expectRefused(_ result: ProcessResult, _ path: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 2, "\(path): exit \(result.status) \(result.err)", sourceLocation: sourceLocation)
        #expect(result.err.hasPrefix("vault: ") && result.err.split(separator: "\n").count == 1, "\(result.err)", sourceLocation: sourceLocation)
        #expect(result.err.contains("chmod 600 \(path)"), "\(result.err)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, sourceLocation: sourceLocation)
    }

    @Test("passphrase files the group or others can read are refused (exit 2, chmod 600 PATH); 0600 and 0400 are read")
    func passphraseFiles() async throws {
        try await withVault { fixture, environment in
            for mode in [0o644, 0o640, 0o604] {
                let path = file(fixture, "open-\(String(mode, radix: 8))", Self.passphrase, mode: mode)
                expectRefused(try await load(environment, ["--passphrase-file", path]), path)
                expectRefused(try await load(environment.merging(["VAULT_PASSPHRASE_FILE": path]) { $1 }), path)
            }
            for mode in [0o600, 0o400, 0o620] {
                let path = file(fixture, "private-\(String(mode, radix: 8))", Self.passphrase + "\n", mode: mode)
                let result = try await load(environment, ["--passphrase-file", path])
                #expect(result.status == 0 && result.out == "s3cret", "mode \(String(mode, radix: 8)): \(result.err)")
            }
            let newPassphrase = file(fixture, "new-open", "another passphrase", mode: 0o644)
            let passwd = try await VaultProcess.vaultAsync(
                ["passwd", "--new-passphrase-file", newPassphrase],
                environment: environment.merging(["VAULT_PASSPHRASE": Self.passphrase]) { $1 })
            expectRefused(passwd, newPassphrase)
        }
    }

    @Test("systemd's credential: 0400, or 0440 through an ACL entry for the service's user alone, is read; an ACL for others is not")
    func systemdCredentials() async throws {
        try await withVault { fixture, environment in
            let credentials = "\(fixture.dir)/credentials"
            #expect(mkdir(credentials, 0o700) == 0)
            let path = "\(credentials)/vault-passphrase"
            _ = FileManager.default.createFile(atPath: path, contents: Data(Self.passphrase.utf8), attributes: [.posixPermissions: 0o400])
            let withCredentials = environment.merging(["CREDENTIALS_DIRECTORY": credentials]) { $1 }
            let plain = try await load(withCredentials)
            #expect(plain.status == 0 && plain.out == "s3cret", "\(plain.err)")
            // What systemd writes when it cannot chown: mode 0400 and an ACL entry `user:UID:r--`, so stat shows 0440.
            guard try setACL(path, namedUser: getuid(), groupPermissions: 0) else {
                Issue.record("this file system takes no POSIX ACL; the ACL half was not tested")
                return
            }
            var info = stat()
            #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o440, "the mask shows as group bits")
            let acl = try await load(withCredentials)
            #expect(acl.status == 0 && acl.out == "s3cret", "\(acl.err)")
            #expect(try setACL(path, namedUser: getuid() &+ 4242, groupPermissions: 0))
            expectRefused(try await load(withCredentials), path)
            #expect(try setACL(path, namedUser: getuid(), groupPermissions: 4))
            expectRefused(try await load(withCredentials), path)
        }
    }

    /// Sets the access ACL of `path`: owner r, `user:namedUser:r`, group `groupPermissions`,
    /// mask r, other none (through python3: the test has no setfacl). False when the file
    /// system refuses ACLs.
    func setACL(_ path: String, namedUser: uid_t, groupPermissions: Int) throws -> Bool {
        let script = """
            import os, struct, sys
            none = 0xFFFFFFFF
            entries = [(0x01, 4, none), (0x02, 4, int(sys.argv[2])), (0x04, int(sys.argv[3]), none), (0x10, 4, none), (0x20, 0, none)]
            data = struct.pack('<I', 2) + b''.join(struct.pack('<HHI', *e) for e in entries)
            try:
                os.setxattr(sys.argv[1], 'system.posix_acl_access', data)
            except OSError:
                sys.exit(3)
            """
        let result = try ChildProcess.run("/usr/bin/python3", ["-c", script, path, String(namedUser), String(groupPermissions)])
        return result.status == 0
    }

    @Test("- is standard input; a FIFO and <(...) still work; save refuses --passphrase-file - (stdin carries the secret)")
    func standardInputAndPipes() async throws {
        try await withVault { fixture, environment in
            let piped = try await load(environment, ["--passphrase-file", "-"], stdin: Data((Self.passphrase + "\n").utf8))
            #expect(piped.status == 0 && piped.out == "s3cret", "\(piped.err)")
            let variable = try await load(environment.merging(["VAULT_PASSPHRASE_FILE": "-"]) { $1 }, stdin: Data(Self.passphrase.utf8))
            #expect(variable.status == 0 && variable.out == "s3cret", "\(variable.err)")

            var shell = environment
            shell["VAULT"] = VaultProcess.vaultPath
            shell["PW"] = Self.passphrase
            let substituted = try await ChildProcess.runAsync(
                "/bin/bash", ["-c", #""$VAULT" load --server api.example.com --account alice --passphrase-file <(printf %s "$PW")"#],
                environment: shell)
            #expect(substituted.status == 0 && substituted.out == "s3cret", "\(substituted.err)")

            let save = try await VaultProcess.vaultAsync(
                ["save", "--server", "api.example.com", "--account", "bob", "--passphrase-file", "-"], environment: environment,
                stdin: Data("\(Self.passphrase)\nbob-secret".utf8))
            #expect(save.status == 2, "\(save.err)")
            #expect(save.err.contains("standard input") && save.err.split(separator: "\n").count == 1, "\(save.err)")
            let list = try await VaultProcess.vaultAsync(["list"], environment: environment.merging(["VAULT_PASSPHRASE": Self.passphrase]) { $1 })
            #expect(!list.out.contains("bob"), "nothing saved: \(list.out)")
        }
    }

    @Test("an OAuth client secret file and an etcd password file others can read are refused too")
    func clientSecretAndEtcdPasswordFiles() async throws {
        try await withVault { fixture, environment in
            let secret = file(fixture, "client-secret", "client-secret-0b7", mode: 0o644)
            let login = try await VaultProcess.vaultAsync(
                [
                    "login", "--server", "http://127.0.0.1:9", "--account", "alice", "--provider", "oauth2", "--token-url",
                    "http://127.0.0.1:9/token", "--client-id", "c", "--client-secret-file", secret,
                ], environment: environment, stdin: Data("pw".utf8))
            expectRefused(login, secret)
            #expect(!login.err.contains("client-secret-0b7"))
            let password = file(fixture, "etcd-password", "etcd-password-4c1", mode: 0o640)
            let etcd = try await VaultProcess.vaultAsync(
                [
                    "list", "--backend", "etcd", "--etcd-endpoints", "http://127.0.0.1:9", "--etcd-user", "u", "--etcd-password-file",
                    password,
                ], environment: environment.merging(["VAULT_PASSPHRASE": Self.passphrase]) { $1 })
            expectRefused(etcd, password)
        }
    }
}

@Suite("SmallPromises: one rule for private directories", .offThePool)
struct PrivateDirectoryRuleTests {
    @Test("the vault in a 0755 directory: login, the token expires, a refresh through request and token: exit 0")
    func refreshBesideAVaultIn0755() async throws {
        try await withAuthFixture(accessTTL: 2) { fixture in
            let directory = "\(fixture.dir)/vault"
            #expect(mkdir(directory, 0o755) == 0)
            chmod(directory, 0o755)
            #expect(try await fixture.login().status == 0)
            try await Task.sleep(for: .milliseconds(2500))
            let request = try await fixture.request(verbose: true)
            #expect(request.status == 0, "\(request.err)")
            // With an agent beside (docs/testing.md), the agent may have refreshed ahead.
            let adopted = AgentBeside.isOn && request.err.contains("took the tokens another process had just refreshed")
            #expect(request.err.contains("refreshed the access token") || adopted, "\(request.err)")
            try await Task.sleep(for: .milliseconds(2500))
            let token = try await fixture.vault(["token", "--server", fixture.url, "--account", "alice"])
            #expect(token.status == 0, "\(token.err)")
            #expect(fixture.server.stats.refreshes >= 2)
        }
    }

    @Test("a directory others can write to is refused (exit 4) before the password is asked or sent")
    func groupWritableBeforeAnythingIsSent() async throws {
        try await withAuthFixture { fixture in
            let directory = "\(fixture.dir)/vault"
            #expect(mkdir(directory, 0o775) == 0)
            chmod(directory, 0o775)
            let login = try await fixture.login()
            #expect(login.status == 4, "\(login.err)")
            #expect(login.err.contains("chmod go-w \(directory)") && login.err.split(separator: "\n").count == 1, "\(login.err)")
            #expect(fixture.server.stats.logins == 0 && fixture.server.stats.failedLogins == 0, "the password was never sent")
        }
    }
}

@Suite("SmallPromises: what logout says", .offThePool)
struct LogoutReportTests {
    @Test("no revocation endpoint: the provider was not told, the tokens stay valid until they expire (stderr, exit 0)")
    func notTold() async throws {
        try await withAuthFixture { fixture in
            #expect(try await fixture.login().status == 0)
            let logout = try await fixture.vault(["logout", "--server", fixture.url, "--account", "alice"])
            #expect(logout.status == 0, "\(logout.err)")
            #expect(logout.out.isEmpty)
            #expect(logout.err.split(separator: "\n").count == 1, "\(logout.err)")
            #expect(logout.err.contains("was not told") && logout.err.contains("until they expire"), "\(logout.err)")
        }
    }

    @Test("a logout the provider is told of: one line on stderr, like login's")
    func revoked() async throws {
        try await withSignInFixture { fixture in
            #expect(try await fixture.login().status == 0)
            let logout = try await fixture.auth.vault(["logout", "--server", fixture.url, "--account", "alice"])
            #expect(logout.status == 0, "\(logout.err)")
            #expect(logout.err == "vault: logged out of \(fixture.url) as alice; the provider revoked the tokens\n", "\(logout.err)")
            #expect(fixture.server.stats.revocations == 2)
        }
    }
}

@Suite("SmallPromises: whoami --json and a closed standard output", .offThePool)
struct OutputPromiseTests {
    @Test("whoami --json carries the pending Sign in with Apple profile the plain output shows")
    func whoamiJSONPendingProfile() async throws {
        try await withAppleFixture { fixture in
            let login = try await fixture.login(code: try fixture.code(), extra: ["--name", "Alice Example", "--email", "a@example.com"])
            #expect(login.status == 0, "\(login.err)")
            let json = try await fixture.auth.vault(["whoami", "--server", fixture.url, "--account", "alice", "--json"])
            #expect(json.status == 0, "\(json.err)")
            let object = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
            let pending = try #require(object["pending_profile"] as? [String: Any], "\(json.out)")
            #expect(pending["name"] as? String == "Alice Example" && pending["email"] as? String == "a@example.com")
            #expect(object["sub"] as? String == "alice")

            let closed = try await Self.intoClosedPipe(["whoami", "--server", fixture.url, "--account", "alice"], fixture.auth.env)
            Self.expectExit4(closed, "whoami")
        }
    }

    @Test("load, list, token, request, the help and the version into a pipe nobody reads: exit 4 and one line, never SIGPIPE")
    func closedStandardOutput() async throws {
        try await withAuthFixture { fixture in
            #expect(try await fixture.login().status == 0)
            let account = ["--server", fixture.url, "--account", "alice"]
            let commands = [
                ["load"] + account, ["list"], ["token"] + account, ["request"] + account + ["/api/get_devs"], ["--help"], ["load", "--help"],
                ["login", "--help"], ["--version"],
            ]
            for command in commands {
                Self.expectExit4(try await Self.intoClosedPipe(command, fixture.env), command[0])
            }
        }
    }

    typealias ClosedPipeResult = (signalled: Bool, status: Int32, err: String)

    static func expectExit4(_ result: ClosedPipeResult, _ what: String) {
        #expect(!result.signalled && result.status == 4, "\(what): \(result.signalled ? "signal" : "exit") \(result.status) \(result.err)")
        #expect(result.err.hasPrefix("vault: ") && result.err.split(separator: "\n").count == 1, "\(what): \(result.err)")
        #expect(result.err.contains("standard output"), "\(what): \(result.err)")
    }

    /// Runs `vault ARGS` with standard output a pipe whose read end is closed before vault
    /// starts, and SIGPIPE at its default action (`env --default-signal`, whatever this test
    /// process ignores); at most 60 s.
    static func intoClosedPipe(_ arguments: [String], _ environment: [String: String]) async throws -> ClosedPipeResult {
        let output = try SpawnedProcess.pipe()
        close(output.read)
        let errors = try SpawnedProcess.pipe()
        let process: SpawnedProcess
        do {
            // Started clean (no signal blocked or ignored), whichever thread runs this.
            process = try SpawnedProcess(
                "/usr/bin/env", ["--default-signal=PIPE", VaultProcess.vaultPath] + arguments, environment: environment,
                stdio: [.null, .descriptor(output.write), .descriptor(errors.write)])
        } catch {
            for descriptor in [output.write, errors.read, errors.write] { close(descriptor) }
            throw error
        }
        close(output.write)
        close(errors.write)
        let errorsHandle = FileHandle(fileDescriptor: errors.read, closeOnDealloc: true)
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            Issue.record("\(arguments[0]) still ran after 60 s")
        }
        process.waitUntilExit()
        let err = String(decoding: errorsHandle.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationReason == .uncaughtSignal, process.terminationStatus, err)
    }
}
