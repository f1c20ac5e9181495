// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why the store needs a passphrase.
public enum PassphrasePurpose: Sendable, Equatable {
    /// To open an existing vault file.
    case unlock
    /// To create a new vault file (a terminal prompt asks twice).
    case create
    /// The new passphrase of `vault passwd` (a terminal prompt asks twice); see
    /// ``PassphraseSource/newPassphrase(file:prompter:)``.
    case change
}

/// Asks a person for a secret without echoing it: the `vault` command's terminal prompt.
/// VaultStore does no terminal I/O itself; a program that can ask supplies one of these.
public protocol SecretPrompter: Sendable {
    /// True when there is somebody to ask (a controlling terminal).
    var isAvailable: Bool { get }
    /// Shows `prompt` and reads one line without echo; `.invalidInput` when it cannot.
    func readSecret(prompt: String) throws(VaultError) -> Secret
    /// Tells the person something about what they typed (a short new passphrase); never
    /// a secret.
    func warn(_ message: String)
}

extension SecretPrompter {
    /// Says nothing: a prompter that cannot warn need not.
    public func warn(_ message: String) {}
}

/// Where the passphrase of an encrypted vault comes from.
///
/// ``standard(given:prompter:)`` takes the passphrases a program was given (``Given``: files,
/// a systemd credential, the passphrase itself), first present wins, then asks the
/// `prompter` (the `vault` command's no-echo terminal prompt), when one is given and
/// available. The `vault` command lists `--passphrase-file`, `VAULT_PASSPHRASE_FILE`,
/// `$CREDENTIALS_DIRECTORY/vault-passphrase` and `VAULT_PASSPHRASE`, in that order.
public struct PassphraseSource: Sendable {
    private let obtain: @Sendable (PassphrasePurpose) throws(VaultError) -> Secret
    private let given: @Sendable () throws(VaultError) -> Secret?
    private let again: @Sendable (Int) throws(VaultError) -> Secret?

    /// A source backed by a closure. `given` answers ``givenPassphrase()``: the passphrase
    /// when it is known without asking anybody, else nil (the default: a closure that may
    /// prompt counts as not given, so a warm key cache serves without calling it).
    /// `again` answers ``passphraseAfterRefusal(attempt:)`` (default: never asks again).
    public init(
        given: @escaping @Sendable () throws(VaultError) -> Secret? = { nil },
        again: @escaping @Sendable (Int) throws(VaultError) -> Secret? = { _ in nil },
        _ obtain: @escaping @Sendable (PassphrasePurpose) throws(VaultError) -> Secret
    ) {
        self.obtain = obtain
        self.given = given
        self.again = again
    }

    /// The passphrase asked for again after `attempt` passphrases were refused (1 after
    /// the first), or nil when this source does not ask again: a given passphrase (a
    /// file, a variable) is refused at once, and a terminal prompt asks three times in
    /// all, as `sudo` does (``maximumTries``).
    public func passphraseAfterRefusal(attempt: Int) throws(VaultError) -> Secret? {
        try again(attempt)
    }

    /// How many passphrases a terminal prompt takes before the vault gives up: 3.
    public static let maximumTries = 3

    /// New passphrases shorter than this (in characters) get a warning, not a refusal: 8.
    public static let shortPassphraseLength = 8

    /// The passphrase for `purpose`.
    public func passphrase(for purpose: PassphrasePurpose) throws(VaultError) -> Secret {
        try obtain(purpose)
    }

    /// The passphrase when one was given without a prompt (a file, `LoadCredential`, an
    /// environment variable, a fixed one), else nil. A store with a kept key checks a given
    /// passphrase against it, and asks for none when nil: as `ssh-agent` serves a loaded key.
    public func givenPassphrase() throws(VaultError) -> Secret? {
        try given()
    }

    /// Always the same passphrase (tests, embedding programs that hold it themselves).
    public static func fixed(_ passphrase: Secret) -> PassphraseSource {
        PassphraseSource(given: { passphrase }) { _ in passphrase }
    }

    /// A passphrase given without a prompt: where ``standard(given:prompter:)`` looks, in
    /// the order of its list.
    public enum Given: Sendable {
        /// A passphrase file (``readPassphraseFile(_:what:)``; `-` is standard input), read
        /// when the passphrase is first needed.
        case file(String)
        /// systemd's `LoadCredential=vault-passphrase`: the file `vault-passphrase` in this
        /// directory (``StandardLocations/credentialsDirectory``), used when it exists.
        case systemdCredential(directory: String)
        /// The passphrase itself (an embedding program that holds it, a variable).
        case value(Secret)

        /// The file of a systemd credential.
        static func credentialFile(_ directory: String) -> String { "\(directory)/vault-passphrase" }

        /// True when this source holds a passphrase now (a credential file that exists,
        /// a passphrase that is not empty).
        var isPresent: Bool {
            switch self {
            case .file(let path): !path.isEmpty
            case .systemdCredential(let directory): !directory.isEmpty && access(Self.credentialFile(directory), F_OK) == 0
            case .value(let secret): !secret.isEmpty
            }
        }

        /// The passphrase this source holds (read from its file).
        func read() throws(VaultError) -> Secret {
            switch self {
            case .file(let path): try readPassphraseFile(path)
            case .systemdCredential(let directory): try readPassphraseFile(Self.credentialFile(directory))
            case .value(let secret): secret
            }
        }
    }

    /// The first of `given` that is present, else the `prompter` (the `vault` command's
    /// no-echo terminal prompt), when one is given and available. With none of them it
    /// fails at once: `.invalidInput` with the remedy ``VaultError/Remedy/givePassphrase``.
    /// A given passphrase is read when first needed, and never read again after a refusal
    /// (a FIFO or standard input gives it once).
    public static func standard(given sources: [Given], prompter: (any SecretPrompter)? = nil) -> PassphraseSource {
        let given: @Sendable () throws(VaultError) -> Secret? = { () throws(VaultError) -> Secret? in
            guard let source = sources.first(where: \.isPresent) else { return nil }
            return try source.read()
        }
        let again: @Sendable (Int) throws(VaultError) -> Secret? = { attempt throws(VaultError) -> Secret? in
            // A given passphrase is not read again (a FIFO or standard input gives it once).
            let isGiven = sources.contains(where: \.isPresent)
            guard attempt < maximumTries, !isGiven, let prompter, prompter.isAvailable else { return nil }
            return try nonEmpty(prompter.readSecret(prompt: "Sorry, try again.\nVault passphrase: "))
        }
        return PassphraseSource(given: given, again: again) { purpose throws(VaultError) in
            if let passphrase = try given() { return passphrase }
            guard let prompter, prompter.isAvailable else {
                throw VaultError.invalidInput("no passphrase (there is no terminal to ask on)").with(.givePassphrase)
            }
            return try prompt(for: purpose, on: prompter)
        }
    }

    /// The new passphrase of a change (`vault passwd`): read from `file` when it is given
    /// and not empty, else asked twice of the `prompter`. Never the sources of the current
    /// passphrase: with neither it fails with `.invalidInput` and the remedy
    /// ``VaultError/Remedy/giveNewPassphrase``.
    public static func newPassphrase(file: String?, prompter: (any SecretPrompter)? = nil) throws(VaultError) -> Secret {
        if let path = file, !path.isEmpty {
            return try readPassphraseFile(path, what: "new passphrase file")
        }
        guard let prompter, prompter.isAvailable else {
            throw VaultError.invalidInput("no new passphrase (there is no terminal to ask on); the vault is unchanged")
                .with(.giveNewPassphrase)
        }
        return try prompt(for: .change, on: prompter)
    }

    /// Reads a passphrase file (`what` names it in messages); one trailing newline is
    /// dropped. A FIFO or socket (`<(...)` in a shell) is read too, but never waited on for
    /// more than ``pipeTimeout``: one that nobody writes is an error, not a hang. `-` is
    /// standard input (not a terminal: nothing would hide the passphrase as it is typed). A
    /// regular file the group or others can read is refused (``SecretFileAccess``).
    public static func readPassphraseFile(_ path: String, what: String = "passphrase file") throws(VaultError) -> Secret {
        let standardInput = path == standardInputName
        if standardInput, isatty(STDIN_FILENO) == 1 {
            throw .invalidInput("the \(what) is standard input (-), which is a terminal: pipe it in, or name a file")
        }
        let fd = standardInput ? fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3) : open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw .invalidInput("cannot read the \(what) \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        let isPipe = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT == S_IFIFO || info.st_mode & S_IFMT == S_IFSOCK)
        try SecretFileAccess.check(fd: fd, info: info, path: standardInput ? standardInputPath() : path, what: "the \(what)")
        // Standard input's flags are shared with whoever gave it: left as they are.
        if !isPipe, !standardInput { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) }
        let deadline = ContinuousClock.now + pipeTimeout
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if isPipe {
                let left = deadline - ContinuousClock.now
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let milliseconds = max(0, Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
                if poll(&poller, 1, milliseconds) == 0 {
                    throw .invalidInput("nothing was written to the \(what) \(path) within \(pipeTimeout) (a FIFO nobody writes?)")
                }
            }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0, errno == EINTR || errno == EAGAIN { continue }
            if n < 0 { throw .invalidInput("cannot read the \(what) \(path): \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            bytes.append(contentsOf: buffer[0..<n])
            // Refused, never cut: a passphrase cut short would let another file with the same start open the vault.
            guard bytes.count <= maximumFileSize else {
                throw .invalidInput("the \(what) \(path) holds more than \(maximumFileSize >> 10) KiB; it should hold one secret")
            }
        }
        let passphrase = Secret(bytes: dropOneNewline(bytes))
        guard !passphrase.isEmpty else { throw .invalidInput("the \(what) \(path) is empty") }
        return passphrase
    }

    /// The largest secret file read (a passphrase and its newline): 64 KiB. A larger one is
    /// refused whole.
    public static let maximumFileSize = 65536

    /// The name that means standard input wherever a secret file is named: `-`.
    public static let standardInputName = "-"

    /// The file standard input was redirected from, for messages (`/proc/self/fd/0`).
    private static func standardInputPath() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/fd/0", &buffer, buffer.count - 1)
        guard count > 0 else { return "standard input" }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The longest a passphrase file that is a FIFO or socket is waited on: 10 s.
    public static let pipeTimeout: Duration = .seconds(10)

    /// `bytes` without one trailing "\n" or "\r\n".
    public static func dropOneNewline(_ bytes: [UInt8]) -> [UInt8] {
        var result = bytes
        if result.last == UInt8(ascii: "\n") {
            result.removeLast()
            if result.last == UInt8(ascii: "\r") { result.removeLast() }
        }
        return result
    }

    private static func prompt(for purpose: PassphrasePurpose, on prompter: any SecretPrompter) throws(VaultError) -> Secret {
        switch purpose {
        case .unlock:
            return try nonEmpty(prompter.readSecret(prompt: "Vault passphrase: "))
        case .create, .change:
            let label = purpose == .create ? "New vault passphrase: " : "New passphrase: "
            // A mistyped repeat asks both again, as passwd(1) does: the command, and what was
            // typed before it (a secret to save), is not lost to one slip.
            var first = Secret("")
            for attempt in 1...newPassphraseTries {
                first = try nonEmpty(prompter.readSecret(prompt: label))
                let second = try prompter.readSecret(prompt: "Repeat it: ")
                if first == second { break }
                guard attempt < newPassphraseTries else {
                    throw .invalidInput("the two passphrases differ (\(newPassphraseTries) tries); nothing was changed")
                }
                let left = newPassphraseTries - attempt
                prompter.warn("the two passphrases differ; try again (\(left) \(left == 1 ? "try" : "tries") left)")
            }
            if String(decoding: first.bytes, as: UTF8.self).count < shortPassphraseLength {
                prompter.warn(
                    "warning: the new passphrase is shorter than \(shortPassphraseLength) characters; "
                        + "a short one is easy to guess for whoever gets a copy of the vault file")
            }
            return first
        }
    }

    /// How many times a new passphrase and its repeat are asked for before the command gives up.
    public static let newPassphraseTries = 3

    private static func nonEmpty(_ secret: Secret) throws(VaultError) -> Secret {
        guard !secret.isEmpty else { throw .invalidInput("the passphrase must not be empty") }
        return secret
    }
}
