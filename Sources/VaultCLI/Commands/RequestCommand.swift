// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import Foundation
import HTTPTypes
import VaultAuth
import VaultStore
import VaultStoreCLI

struct RequestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Send an authorised HTTP request and print the response body.",
        usage: "vault request [<server> <account>] <path-or-url> [<options>]",
        discussion: """
            The access token is refreshed before it expires, a 401 is retried once with a new \
            token, and a dead refresh token leads to a silent login with the stored password. \
            Exit 0 on a 2xx answer, 3 when authentication fails for good, 5 on any other \
            status or a network error. The token is only ever sent to the server's origin.

              vault request https://api.example.com alice /api/get_devs
              vault request /api/get_devs       # the only account logged in

            \(SharedOptionsTopic.pointer)
            """)

    @OptionGroup(title: "Sign-in options") var auth: AuthOptions
    @Option(name: [.customShort("X"), .customLong("request")], help: "The HTTP method (default: GET, or POST with --data).")
    var method: String?
    @Option(name: [.customShort("H"), .customLong("header")], help: ArgumentHelp("A header 'Name: value' (repeatable).", valueName: "header"))
    var headers: [String] = []
    @Option(
        name: [.customShort("d"), .long],
        help: ArgumentHelp(
            "The body, as curl's -d: text, @FILE, or @- (or -) for stdin, with CR and LF left out of a file; repeated: joined with &.",
            valueName: "body"))
    var data: [String] = []
    @Option(help: ArgumentHelp("The body as curl's --data-binary: as -d, but a file or stdin is sent byte for byte.", valueName: "body"))
    var dataBinary: [String] = []
    @Argument(
        help: ArgumentHelp(
            "[SERVER ACCOUNT] PATH: the server's base URL and the account (or --server, --account; left out: the only account "
                + "logged in), then a path on the server or a URL with the server's origin.", valueName: "server account path"))
    var words: [String] = []
    /// The path or URL: the last argument.
    var target: String { words.last ?? "" }
    @OptionGroup(title: "Store options", visibility: .hidden) var backendChoice: BackendChoice
    @OptionGroup(title: "Store options", visibility: .hidden) var passphraseOption: PassphraseFileOption
    @OptionGroup(title: "Store options", visibility: .hidden) var keyCacheOption: KeyCacheOption
    @OptionGroup(title: "Keyring options", visibility: .hidden) var keyringOptions: KeyringPromptOptions
    @OptionGroup(title: "etcd options", visibility: .hidden) var etcdOptions: EtcdOptions
    var store: StoreOptions { StoreOptions(backendChoice, passphraseOption, keyCacheOption, keyringOptions, etcdOptions) }

    mutating func validate() throws {
        try store.validate()
        guard !words.isEmpty else { throw ValidationError("give the path or URL to request: vault request [SERVER ACCOUNT] PATH") }
        try auth.take(Array(words.dropLast()))
    }

    func run() async throws {
        var status = 0
        try await reportingAuthErrors { () async throws(AuthError) in
            let body = try readBody()
            var parsedHeaders: [(name: String, value: String)] = []
            for header in headers {
                guard let colon = header.firstIndex(of: ":") else { throw .invalidRequest("a header must look like 'Name: value'") }
                let name = header[..<colon].trimmingCharacters(in: .whitespaces)
                parsedHeaders.append((name, header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            }
            let fields = try HTTPFields(validating: RequestBodyDefaults.headers(parsedHeaders, hasBody: body != nil))
            let verbose = store.verbose
            guard let method = HTTPRequest.Method(RequestBodyDefaults.method(self.method, hasBody: body != nil)) else {
                throw .invalidRequest("the method must be a plain HTTP method such as GET or POST")
            }
            let store = self.store
            let (response, answer) = try await auth.withSession(store) { session throws(AuthError) in
                let settings = try await session.settings()
                let request = HTTPRequest(method: method, url: try session.resolve(target, settings: settings), headerFields: fields)
                let onEvent: @Sendable (RequesterEvent) -> Void = { EventReport.note($0, verbose: verbose) }
                // The agent's tokens first, this process's when it cannot serve them.
                let supplier = AgentTokens.supplier(
                    try await session.tokenSource(settings: settings, onEvent: onEvent), store: store, timeout: auth.timeout)
                return try await Requester(supplier: supplier, transport: session.transport, onEvent: onEvent).send(request, body: body)
            }
            ResponseOutput.write(answer)
            status = response.status.code
        }
        if !(200..<300).contains(status) {
            Terminal.note(ResponseOutput.failure(status: status))
            throw ExitCode(ExitStatus.network)
        }
    }

    /// The most a request body may hold (`--data`, `@FILE` or stdin): 16 MiB.
    static let maximumBodySize = 16 << 20

    /// The body of every `-d` and `--data-binary`, in the order given, joined with `&` (as
    /// curl does); nil when there is none. Standard input can be read once.
    private func readBody() throws(AuthError) -> [UInt8]? {
        let parts = Self.bodyParts(arguments: CommandLine.arguments, data: data, dataBinary: dataBinary)
        guard !parts.isEmpty else { return nil }
        var readStandardInput = false
        var body: [UInt8] = []
        for (index, part) in parts.enumerated() {
            if index > 0 { body.append(UInt8(ascii: "&")) }
            body += try read(part.value, binary: part.binary, readStandardInput: &readStandardInput)
            guard body.count <= Self.maximumBodySize else { throw .invalidRequest("the request body is larger than 16 MiB") }
        }
        return body
    }

    /// The values of `-d`/`--data` and `--data-binary` in the order the command line gives
    /// them (each list keeps its own order; the command line says how they interleave).
    static func bodyParts(arguments: [String], data: [String], dataBinary: [String]) -> [(value: String, binary: Bool)] {
        var text = data[...]
        var binary = dataBinary[...]
        var parts: [(value: String, binary: Bool)] = []
        for argument in arguments {
            if argument == "--data-binary" || argument.hasPrefix("--data-binary="), let next = binary.popFirst() {
                parts.append((next, true))
            } else if argument == "-d" || argument == "--data" || argument.hasPrefix("--data="), let next = text.popFirst() {
                parts.append((next, false))
            }
        }
        return parts + text.map { ($0, false) } + binary.map { ($0, true) }
    }

    /// One body part: text as given, `@FILE`, or `@-`/`-` for standard input; CR and LF are
    /// left out of a file or stdin unless `binary` (curl's `-d` and `--data-binary`).
    private func read(_ value: String, binary: Bool, readStandardInput: inout Bool) throws(AuthError) -> [UInt8] {
        var bytes: [UInt8]
        do throws(VaultError) {
            if value == "-" || value == "@-" {
                guard !readStandardInput else { throw .invalidInput("standard input can give only one body part") }
                readStandardInput = true
                try store.checkStandardInput(["--data \(value)"])
                bytes = try BoundedRead.all(fd: STDIN_FILENO, limit: Self.maximumBodySize, what: "standard input")
            } else if value.hasPrefix("@") {
                bytes = try BoundedRead.file(String(value.dropFirst()), limit: Self.maximumBodySize)
            } else {
                return Array(value.utf8)
            }
        } catch {
            throw .invalidRequest(error.description)
        }
        if !binary { bytes.removeAll { $0 == 0x0D || $0 == 0x0A } }
        return bytes
    }
}
