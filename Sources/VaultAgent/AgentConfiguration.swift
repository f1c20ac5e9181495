// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Logging
import VaultAuth
import VaultStore

/// An account the agent keeps: a server (base URL, normalised) and an account on it.
public struct KeptAccount: Hashable, Sendable, CustomStringConvertible {
    public var server: String
    public var account: String

    public init(server: String, account: String) {
        self.server = ServerName.normalized(server)
        self.account = account
    }

    /// `ACCOUNT@SERVER`, the form `--token-file` takes.
    public var description: String { "\(account)@\(server)" }
}

/// A file the agent keeps holding `account`'s current access token (`--token-file`).
public struct TokenFileBinding: Hashable, Sendable {
    public var path: String
    public var account: KeptAccount

    public init(path: String, account: KeptAccount) {
        self.path = path
        self.account = account
    }
}

/// Everything `vault agent` runs with, typed (the command reads the flags and variables).
public struct AgentConfiguration: Sendable {
    /// The store the agent serves, as the commands name it (see `StoreConfiguration.agentStoreKey`):
    /// a request naming another store is declined.
    public var storeKey: String
    /// Opens the store. `afterLock` is true once `vault lock` made the agent drop its keys:
    /// then only a key another command put in the key cache (`vault unlock`) may open it,
    /// never a passphrase source the agent was started with.
    public var openStore: @Sendable (_ afterLock: Bool) throws(VaultError) -> any SecureStore
    /// Whether the store's key may still be held (checked before each use of the store and
    /// every ``Agent/Tuning/lockedPoll``): false locks the agent as `vault lock` does. Nil:
    /// the key is held until `vault lock` (an agent given its passphrase). An agent that
    /// took its key from the key cache holds it no longer than the cache does.
    public var keyLease: (@Sendable (any SecureStore) -> Bool)?
    /// Leeway, timeouts and lock placement of every account's token source.
    public var requester: Requester.Configuration
    /// The silent re-login policy (nil: a dead refresh token needs `vault login`).
    public var reauthentication: SilentReauthenticator.Policy?
    /// How logins, refreshes and requests reach the network.
    public var transport: any HTTPTransport
    /// The accounts to keep (`--account`, repeatable); nil: every account logged in.
    public var accounts: [KeptAccount]?
    /// The refresh token's idle window when the provider does not say it
    /// (`refresh_expires_in`); nil: only the access token's expiry is kept ahead of.
    public var keepAlive: Duration?
    /// Token files to keep fresh.
    public var tokenFiles: [TokenFileBinding]
    /// What no token file may replace (vault's own files and directories), checked again
    /// before each write against the directory the write uses.
    package var tokenFileOwnPlaces = TokenFilePlace.OwnPlaces(files: [])
    /// Other names this store goes by (the backend it decided on, the vault file's real
    /// path): a `changed` or `rekeyed` naming one of them is this agent's too.
    package var otherStoreKeys: [String] = []
    /// Where the agent logs (never a secret).
    public var logger: Logger

    public init(
        storeKey: String, openStore: @escaping @Sendable (_ afterLock: Bool) throws(VaultError) -> any SecureStore,
        requester: Requester.Configuration, reauthentication: SilentReauthenticator.Policy?, transport: any HTTPTransport,
        accounts: [KeptAccount]? = nil, keepAlive: Duration? = nil, tokenFiles: [TokenFileBinding] = [],
        logger: Logger = Logger(label: "vault.agent"), keyLease: (@Sendable (any SecureStore) -> Bool)? = nil
    ) {
        self.keyLease = keyLease
        self.storeKey = storeKey
        self.openStore = openStore
        self.requester = requester
        self.reauthentication = reauthentication
        self.transport = transport
        self.accounts = accounts
        self.keepAlive = keepAlive
        self.tokenFiles = tokenFiles
        self.logger = logger
    }
}
