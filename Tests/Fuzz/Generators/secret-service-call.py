#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The vault authors; see LICENSE.
"""Writes the seeds of the secret-service-call fuzz target into Tests/Fuzz/Corpus/secret-service-call.

Each seed is a sequence of calls separated by "\\n--\\n"; a call is three bytes (the object,
the method, the flags: see Sources/VaultFuzzing/Targets/SecretServiceTargets.swift and
SecretServiceCalls.swift for the tables) and the body, serialized by GLib itself from its
text format (g_variant_parse), as a client's message would carry it.
Run it from anywhere: python3 Tests/Fuzz/Generators/secret-service-call.py
"""
from seeds import serialized, write_corpus


def body(signature, text):
    """The serialized bytes of `text` (GVariant text format) as `(signature)`."""
    return serialized(f"({signature})", text)


ROOT = "/org/freedesktop/secrets"
SESSION = f"{ROOT}/session/1"
# Objects (SecretServiceTargets.paths): 0 the service, 1 login, 2 aliases/default, 3 other,
# 4 the foreign item in login, 5 the foreign item in other, 6 vault's credential, 7 session 1,
# 8 prompt 1, 9 the collection directory, 10 "/", 11 no such collection, 12 the foreign item
# by alias, 13 /org/freedesktop; 14 and on: paths earlier replies named.
# Methods (SecretServiceCalls.methods): 0 OpenSession, 1 CreateCollection, 2 SearchItems,
# 3 Unlock, 4 Lock, 5 GetSecrets, 6 ReadAlias, 7 SetAlias, 8 Collection.Delete,
# 9 Collection.SearchItems, 10 CreateItem, 11 Item.Delete, 12 GetSecret, 13 SetSecret,
# 14 Session.Close, 15 Prompt, 16 Dismiss, 17 Get, 18 GetAll, 19 Set, 20 Introspect, 21 unknown.
OPEN_PLAIN = (0, 0, 0, body("sv", "('plain', <''>)"))
# g^c mod p for c = 0x0123456789abcdef, a real client public key.
PRIME = int(
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
    "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF", 16)
CLIENT_KEY = pow(2, 0x0123456789ABCDEF, PRIME).to_bytes(128, "big")
OPEN_DH = (0, 0, 0, body("sv", f"('dh-ietf1024-sha256-aes128-cbc-pkcs7', <@ay {list(CLIENT_KEY)}>)"))


def secret(value, content_type="text/plain", session=SESSION):
    return f"(objectpath '{session}', @ay [], @ay {list(value)}, '{content_type}')"


def create_item(label, attributes, value, replace):
    properties = f"{{'org.freedesktop.Secret.Item.Label': <'{label}'>, 'org.freedesktop.Secret.Item.Attributes': <@a{{ss}} {attributes}>}}"
    return body("a{sv}(oayays)b", f"({properties}, {secret(value)}, {'true' if replace else 'false'})")


SEEDS = {
    "plain-create-search-get-delete": [
        OPEN_PLAIN,
        (1, 10, 0, create_item("note", "{'app': 'fuzz', 'user': 'carol'}", b"s3cret", False)),
        (0, 2, 0, body("a{ss}", "({'app': 'fuzz'},)")),
        (14, 12, 0, body("o", f"(objectpath '{SESSION}',)")),
        (0, 5, 0, body("aoo", f"([objectpath '{ROOT}/collection/login/s1a2b3c4d5e6f7a8b'], objectpath '{SESSION}')")),
        (14, 11, 0, b""),
        (7, 14, 0, b""),
    ],
    "dh-open-get-secret": [OPEN_DH, (6, 12, 0, body("o", f"(objectpath '{SESSION}',)")), (4, 12, 0, body("o", f"(objectpath '{SESSION}',)"))],
    "properties": [
        (1, 18, 0, body("s", "('org.freedesktop.Secret.Collection',)")),
        (4, 17, 0, body("ss", "('org.freedesktop.Secret.Item', 'Attributes')")),
        (3, 19, 0, body("ssv", "('org.freedesktop.Secret.Collection', 'Label', <'Renamed'>)")),
        (4, 19, 0, body("ssv", "('org.freedesktop.Secret.Item', 'Attributes', <{'user': 'alice', 'server': 'git.example.com', 'protocol': 'smtp'}>)")),
        (6, 19, 0, body("ssv", "('org.freedesktop.Secret.Item', 'Label', <'relabelled'>)")),
        (0, 18, 0, body("s", "('',)")),
    ],
    "collections-and-aliases": [
        (0, 1, 0, body("a{sv}s", "({'org.freedesktop.Secret.Collection.Label': <'Work'>}, 'work')")),
        (0, 6, 0, body("s", "('work',)")),
        (0, 7, 0, body("so", f"('default', objectpath '{ROOT}/collection/other')")),
        (2, 9, 0, body("a{ss}", "({'username': 'bob'},)")),
        (2, 8, 0, b""),
        (0, 6, 0, body("s", "('default',)")),
    ],
    "lock-unlock-prompt": [
        (0, 4, 0, body("ao", "([],)")),
        (0, 3, 32, body("ao", f"([objectpath '{ROOT}/collection/login'],)")),
        (8, 15, 0, body("s", "('',)")),
        (1, 9, 0, body("a{ss}", "({'user': 'alice'},)")),
        (0, 3, 0, body("ao", f"([objectpath '{ROOT}/collection/login'],)")),
        (1, 9, 0, body("a{ss}", "({'user': 'alice'},)")),
    ],
    "replace-and-set-secret": [
        OPEN_PLAIN,
        (1, 10, 0, create_item("imap again", "{'user': 'alice', 'server': 'git.example.com', 'protocol': 'imap'}", b"new", True)),
        (5, 13, 0, body("(oayays)", f"({secret(b'changed', 'application/octet-stream')},)")),
        (6, 13, 0, body("(oayays)", f"({secret(b'binary now', 'application/octet-stream')},)")),
        (12, 11, 0, b""),
    ],
    "other-uid-and-client": [
        (0, 0, 4, body("sv", "('plain', <''>)")),
        (10, 20, 4, b""),
        OPEN_PLAIN,
        (6, 12, 8, body("o", f"(objectpath '{SESSION}',)")),
        (7, 14, 8, b""),
    ],
    "introspect": [(0, 20, 0, b""), (9, 20, 0, b""), (10, 20, 0, b""), (13, 20, 0, b""), (4, 20, 0, b""), (1, 20, 0, b"")],
    "drawn-signature-and-path": [
        (0, 0, 1, bytes([2]) + b"ss" + body("ss", "('plain', 'x')")),
        (0, 20, 2, bytes([len(f"{ROOT}/aliases/login")]) + f"{ROOT}/aliases/login".encode()),
        (0, 17, 3, bytes([2]) + b"ss" + bytes([len(f"{ROOT}/collection/other")]) + f"{ROOT}/collection/other".encode()
         + body("ss", "('org.freedesktop.Secret.Collection', 'Items')")),
        (0, 21, 0, body("s", "('x',)")),
    ],
}

write_corpus("secret-service-call", {
    name: b"\n--\n".join(bytes([path, method, flags]) + payload for path, method, flags, payload in calls)
    for name, calls in SEEDS.items()
})
