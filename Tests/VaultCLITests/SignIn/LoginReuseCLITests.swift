// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import Testing
import VaultStore
import VaultTestSupport

/// Issue 38 §2: `vault login SERVER ACCOUNT` signs in again the way the account's last
/// login did (its kept options); options given override them and are kept in turn.
@Suite("vault login SERVER ACCOUNT: back in with the kept options", .offThePool)
struct LoginReuseCLITests {
    /// `vault login URL alice EXTRA...` through the helper browser, its steps logged to `log`.
    func browserLogin(_ fixture: SignInFixture, _ extra: [String], log: String) async throws -> ProcessResult {
        var environment = fixture.browserEnvironment()
        environment["TEST_BROWSER_LOG"] = "\(fixture.auth.dir)/\(log)"
        return try await fixture.auth.vault(["login", fixture.url, "alice"] + extra, env: environment)
    }

    /// The authorization request the helper browser was sent to, as logged in `log`.
    func authorization(_ fixture: SignInFixture, log: String) throws -> [String: String] {
        let text = try String(contentsOfFile: "\(fixture.auth.dir)/\(log)", encoding: .utf8)
        let steps = text.split(separator: "\n").compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
        let url = try #require(steps.first { $0["step"] as? String == "authorize" }?["url"] as? String, "\(text)")
        let items = try #require(URLComponents(string: url)?.queryItems)
        return Dictionary(items.map { ($0.name, $0.value ?? "") }) { first, _ in first }
    }

    @Test("a browser account: the bare command signs in through the browser as before; a new --scope overrides and is kept")
    func browserAccountSignsInAgain() async throws {
        try await withSignInFixture { fixture in
            let first = try await fixture.login(extra: ["--scope", "openid profile"])
            #expect(first.status == 0, "\(first.err)")
            #expect(!first.err.contains("signing in with the kept options"), "\(first.err)")

            let again = try await browserLogin(fixture, [], log: "again.log")
            #expect(again.status == 0, "\(again.err)")
            #expect(
                again.err.contains(
                    "vault: signing in with the kept options: --provider oidc --issuer \(fixture.url) --client-id cli --scope 'openid profile'\n"),
                "\(again.err)")
            let request = try authorization(fixture, log: "again.log")
            #expect(request["client_id"] == "cli" && request["scope"] == "openid profile", "\(request)")
            fixture.expectNoSecrets(again)

            let overridden = try await browserLogin(fixture, ["--scope", "openid email"], log: "overridden.log")
            #expect(overridden.status == 0, "\(overridden.err)")
            #expect(try authorization(fixture, log: "overridden.log")["scope"] == "openid email")
            let third = try await browserLogin(fixture, [], log: "third.log")
            #expect(third.status == 0, "\(third.err)")
            #expect(try authorization(fixture, log: "third.log")["scope"] == "openid email", "the override was kept")
            let kept = try #require(try fixture.storedSettings()?["loginOptions"] as? [String: Any])
            #expect(kept["provider"] as? String == "oidc" && kept["issuer"] as? String == fixture.url)
            #expect(kept["clientID"] as? String == "cli" && kept["grant"] as? String == "authorization-code")
            #expect(kept["scope"] as? String == "openid email")
        }
    }

    @Test("switching a browser account to --device leaves its kept redirect URI out; --provider reference starts afresh")
    func deviceSwitchAndAnotherProvider() async throws {
        try await withSignInFixture { fixture in
            var login: ProcessResult?
            for attempt in 1...5 {  // a test beside this one may take the port first
                let (fd, port) = try RawSocket.boundLoopback(listening: false)
                close(fd)
                login = try await fixture.login(extra: ["--redirect-uri", "http://127.0.0.1:\(port)/callback"])
                if login?.status == 4 && attempt < 5 { continue }
                break
            }
            #expect(login?.status == 0, "\(login?.err ?? "")")
            // --device with a short --timeout: it must get as far as the device code, not stop
            // at "--redirect-uri is for a sign-in through the browser".
            let device = try await fixture.auth.vault(["login", fixture.url, "alice", "--device", "--timeout", "1"])
            #expect(device.err.contains("enter the code"), "\(device.err)")
            #expect(!device.err.contains("--redirect-uri"), "\(device.err)")
            #expect(device.err.contains("signing in with the kept options: --provider oidc --issuer \(fixture.url) --client-id cli --device\n"))

            // Another provider: nothing kept applies; the reference API asks for the password.
            let reference = try await fixture.auth.vault(["login", fixture.url, "alice", "--provider", "reference"], stdin: AuthFixture.password)
            #expect(reference.status == 0, "\(reference.err)")
            #expect(!reference.err.contains("signing in with the kept options"), "\(reference.err)")
            let kept = try #require(try fixture.storedSettings()?["loginOptions"] as? [String: Any])
            #expect(kept["provider"] as? String == "reference" && kept["issuer"] == nil && kept["clientID"] == nil, "\(kept)")
        }
    }

    @Test("a service account: the kept client-secret file is read again (a rotated secret counts); the secret itself is not in the options")
    func clientSecretFileIsReadAgain() async throws {
        let secret = "client-secret-reuse-do-not-print"
        try await withAuthFixture(clients: [CredentialPair(name: "svc", secret: secret)]) { fixture in
            let file = "\(fixture.dir)/client-secret"
            #expect(FileManager.default.createFile(atPath: file, contents: Data(secret.utf8), attributes: [.posixPermissions: 0o600]))
            let first = try await serviceLogin(fixture, secretFile: file)
            #expect(first.status == 0, "\(first.err)")
            let again = try await fixture.vault(["login", fixture.url, "svc"])
            #expect(again.status == 0, "\(again.err)")
            #expect(
                again.err.contains(
                    "signing in with the kept options: --provider oauth2 --token-url \(fixture.url)/oauth/token --client-id svc "
                        + "--client-secret-file \(file) --grant client-credentials\n"), "\(again.err)")
            // The file now holds another secret: the login reads it, and the server refuses it.
            #expect(FileManager.default.createFile(atPath: file, contents: Data("rotated-wrong".utf8), attributes: [.posixPermissions: 0o600]))
            let wrong = try await fixture.vault(["login", fixture.url, "svc"])
            #expect(wrong.status == 3 && wrong.err.contains("invalid_client"), "\(wrong.err)")
            for result in [first, again, wrong] {
                #expect(!result.err.contains(secret) && !result.out.contains(secret))
            }
            let settings = try #require(try storedSettings(fixture, account: "svc"))
            let kept = try #require(settings["loginOptions"] as? [String: Any])
            #expect(kept["clientSecretFile"] as? String == file)
            let keptText = String(decoding: try JSONSerialization.data(withJSONObject: kept), as: UTF8.self)
            #expect(!keptText.contains(secret) && !keptText.contains("rotated-wrong"), "\(keptText)")
        }
    }

    @Test("a password account: the bare command asks for the password and says nothing of kept options")
    func passwordAccount() async throws {
        try await withAuthFixture { fixture in
            #expect(try await fixture.vault(["login", fixture.url, "alice"], stdin: fixture.password).status == 0)
            let again = try await fixture.vault(["login", fixture.url, "alice"], stdin: fixture.password)
            #expect(again.status == 0 && again.err == "vault: logged in to \(fixture.url) as alice\n", "\(again.err)")
            let wrong = try await fixture.vault(["login", fixture.url, "alice"], stdin: "wrong password")
            #expect(wrong.status == 3, "\(wrong.err)")
        }
    }

    @Test("a secret read from a pipe (/dev/stdin) is not kept as a path; the bare re-login uses the stored secret and says so")
    func secretFromAPipe() async throws {
        let secret = "client-secret-pipe-do-not-print"
        try await withAuthFixture(clients: [CredentialPair(name: "svc", secret: secret)]) { fixture in
            let first = try await serviceLogin(fixture, secretFile: "/dev/stdin", stdin: secret)
            #expect(first.status == 0, "\(first.err)")
            let kept = try #require(try storedSettings(fixture, account: "svc")?["loginOptions"] as? [String: Any])
            #expect(kept["clientSecretFile"] == nil, "a pipe is no file to read again: \(kept)")
            // The vault passphrase on standard input now: it must not become the client secret.
            var environment = fixture.env
            environment["VAULT_PASSPHRASE"] = nil
            let again = try await VaultProcess.vaultAsync(
                ["login", fixture.url, "svc", "--passphrase-file", "-"], environment: environment, stdin: Data("fixture passphrase".utf8))
            #expect(again.status == 0, "\(again.err)")
            #expect(again.err.contains("(and the client secret stored at the last login)\n"), "\(again.err)")
            #expect(!again.err.contains(secret) && !again.err.contains("fixture passphrase"))
        }
    }

    @Test("a new --token-url at another origin, or another --client-id, is never sent the stored client secret")
    func storedSecretStaysWithItsEndpoint() async throws {
        let secret = "client-secret-stays-do-not-print"
        try await withAuthFixture(clients: [CredentialPair(name: "svc", secret: secret)]) { fixture in
            let first = try await serviceLogin(fixture, secretFile: "-", stdin: secret)
            #expect(first.status == 0, "\(first.err)")
            // A token endpoint elsewhere that writes down what it is sent.
            let log = "\(fixture.dir)/captured"
            let capture = try ChildProcess.start(
                "/usr/bin/python3",
                [
                    "-c",
                    """
                    import http.server, sys
                    class H(http.server.BaseHTTPRequestHandler):
                        def do_POST(self):
                            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                            open(sys.argv[1], "ab").write(str(self.headers).encode() + body + b"\\n")
                            self.send_response(401); self.send_header("Content-Type", "application/json"); self.end_headers()
                            self.wfile.write(b'{"error":"invalid_client"}')
                        def log_message(self, *a): pass
                    server = http.server.HTTPServer(("127.0.0.1", 0), H)
                    print(server.server_port, flush=True)
                    server.serve_forever()
                    """, log,
                ])
            defer { capture.kill() }
            let portLine = try #require(try await capture.waitForOutput(timeout: 20) { $0.contains("\n") })
            let elsewhere = "http://127.0.0.1:\(portLine.trimmingCharacters(in: .whitespacesAndNewlines))/token"
            for extra in [["--token-url", elsewhere], ["--client-id", "other"]] {
                let moved = try await fixture.vault(["login", fixture.url, "svc"] + extra)
                #expect(moved.status != 0, "\(extra): \(moved.err)")
                #expect(moved.err.contains("is not sent to another endpoint or client id: give --client-secret-file"), "\(moved.err)")
            }
            let captured = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            let basic = Data("svc:\(secret)".utf8).base64EncodedString()
            #expect(!captured.contains(secret) && !captured.contains(basic), "the stored secret went elsewhere: \(captured)")
        }
    }

    @Test("the hint of a command given another store names that store, so the login it prints signs in there")
    func hintNamesTheStore() async throws {
        try await withSignInFixture(accessTTL: 1) { fixture in
            let other = "\(fixture.auth.dir)/other vault.db"
            let login = try await fixture.login(extra: ["--file", other])
            #expect(login.status == 0, "\(login.err)")
            try await Task.sleep(for: .milliseconds(1100))
            fixture.server.faults.set(.emptyStatus400, count: 1)
            let token = try await fixture.auth.vault(["token", fixture.url, "alice", "--file", other])
            #expect(token.status == 3, "\(token.err)")
            #expect(token.err.contains("run vault login \(fixture.url) alice --file '\(other)' ("), "\(token.err)")
            // The hint, pasted: back in through the browser, in that store.
            let again = try await fixture.auth.vault(["login", fixture.url, "alice", "--file", other], env: fixture.browserEnvironment())
            #expect(again.status == 0 && again.err.contains("signing in with the kept options: --provider oidc"), "\(again.err)")
        }
    }

    /// The first login of the service account `svc`: client credentials, its secret read
    /// from `secretFile` (`-` or `/dev/stdin`: `stdin`).
    func serviceLogin(_ fixture: AuthFixture, secretFile: String, stdin: String? = nil) async throws -> ProcessResult {
        try await fixture.vault(
            [
                "login", fixture.url, "svc", "--provider", "oauth2", "--token-url", fixture.url + "/oauth/token", "--client-id", "svc",
                "--client-secret-file", secretFile, "--grant", "client-credentials",
            ], stdin: stdin)
    }

    /// The login settings vault stored for `account`, read with the library.
    func storedSettings(_ fixture: AuthFixture, account: String) throws -> [String: Any]? {
        let store = EncryptedFileStore(path: "\(fixture.dir)/vault/vault.db", passphrase: .fixed(Secret("fixture passphrase")))
        guard let item = try store.load(CredentialKey(server: fixture.url, account: account, kind: .settings)) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(item.secret.bytes))) as? [String: Any]
    }
}
