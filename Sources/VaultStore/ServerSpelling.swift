// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// Servers that name the same host in other spellings, for lookups that forgive them and
/// for "not found" messages that say which spelling holds the item.
///
/// Reading forgives; writing never does. ``load(_:in:)`` finds an item whose bare host
/// name differs only in case (URLs are already matched so, ``ServerName/normalized(_:)``
/// lower-cases their scheme and host); a save or a remove always acts on the exact key,
/// so an item of another spelling (in a keyring: perhaps another program's, `secret-tool`'s
/// or git's) is never changed or deleted because its name looks alike.
public enum ServerSpelling {
    /// True when `server` is a bare host name (no scheme, no path: letters, digits, `.`,
    /// `-`, `_` and a `:port`, all ASCII), which is matched without regard to case.
    public static func isBareHost(_ server: String) -> Bool {
        !server.isEmpty
            && server.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x3A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2E
                    || byte == 0x2D || byte == 0x5F
            }
    }

    /// True when `stored` is `query` spelled without regard to ASCII case, for a bare host
    /// (Unicode case folding is not used: `K`, the Kelvin sign, must not match `k`).
    public static func sameBareHost(_ stored: String, _ query: String) -> Bool {
        isBareHost(query) && isBareHost(stored) && asciiLowercased(stored) == asciiLowercased(query)
    }

    /// `text` with ASCII capitals made small, and nothing else changed.
    static func asciiLowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    /// The item at `key`; when there is none and the server is a bare host name, the one
    /// item of the same account and kind whose server differs only in case (nil when
    /// there is none, or several: then no spelling is preferred over another).
    public static func load(_ key: CredentialKey, in store: any SecureStore) throws(VaultError) -> Credential? {
        if let exact = try store.load(key) { return exact }
        guard isBareHost(key.server) else { return nil }
        let variants = try store.list(server: nil).filter {
            $0.account == key.account && $0.kind == key.kind && $0.server != key.server && sameBareHost($0.server, key.server)
        }
        guard variants.count == 1 else { return nil }
        return try store.load(variants[0].key)
    }

    /// The items (``SecureStore/list(server:)``) a `--server` filter names: the exact
    /// server, and for a bare host name every spelling that differs only in case.
    public static func list(server: String, in store: any SecureStore) throws(VaultError) -> [CredentialInfo] {
        guard isBareHost(server) else { return try store.list(server: server) }
        return try store.list(server: nil).filter { $0.server == server || sameBareHost($0.server, server) }
    }

    /// The servers under which `key`'s account has an item of `key`'s kind that names the
    /// same host as `key.server` in another spelling (case, scheme, a trailing slash):
    /// `api.example.com` for `https://api.example.com`. Empty when the store cannot be
    /// listed.
    public static func otherSpellings(of key: CredentialKey, in store: any SecureStore) -> [String] {
        guard let items = try? store.list(server: nil) else { return [] }
        let wanted = loose(key.server)
        let servers = items.filter { $0.account == key.account && $0.kind == key.kind && $0.server != key.server }
            .map(\.server).filter { loose($0) == wanted }
        return Array(Set(servers)).sorted()
    }

    /// `server` with an `http`/`https` scheme, a trailing slash and case left out: what
    /// two spellings of one web host share. Other schemes stay (`imap://host` is another
    /// program's password, not a spelling of `host`).
    static func loose(_ server: String) -> String {
        var text = asciiLowercased(server)
        for scheme in ["https://", "http://"] where text.hasPrefix(scheme) { text = String(text.dropFirst(scheme.count)) }
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
