#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The vault authors; see LICENSE.
"""Writes the seeds of the gvariant-attributes fuzz target into Tests/Fuzz/Corpus/gvariant-attributes.

A seed is a byte picking the type (0 a{ss}, 1 (oayays), 2 a{sv}, 3 v, 4 a{o(oayays)}, 5 a
length byte and the type itself), then the value serialized by GLib from its text format
(g_variant_parse), as a client's message would carry it.
Run it from anywhere: python3 Tests/Fuzz/Generators/gvariant-attributes.py
"""
from seeds import serialized, write_corpus


def value(signature, text):
    """The serialized bytes of `text` (GVariant text format) as `signature`."""
    return serialized(signature, text)


SECRET = "(objectpath '/org/freedesktop/secrets/session/1', @ay [1, 2, 3], @ay [104, 105], 'text/plain')"
SEEDS = {
    "attributes": bytes([0]) + value("a{ss}", "{'user': 'alice', 'server': 'git.example.com', 'xdg:schema': 'org.gnome.keyring.NetworkPassword'}"),
    "attributes-repeated-name": bytes([0]) + value("a{ss}", "[{'user', 'alice'}, {'user', 'bob'}, {'server', 'x'}]"),
    "attributes-normalization": bytes([0]) + value("a{ss}", "[{'caf\u00e9', '1'}, {'cafe\u0301', '2'}]"),
    "attributes-empty": bytes([0]) + value("a{ss}", "@a{ss} {}"),
    "secret": bytes([1]) + value("(oayays)", SECRET),
    "properties": bytes([2]) + value(
        "a{sv}", "{'org.freedesktop.Secret.Item.Label': <'note'>, 'org.freedesktop.Secret.Item.Attributes': <{'app': 'fuzz'}>}"),
    "variant-string": bytes([3]) + value("v", "<'plain'>"),
    "variant-int32": bytes([3]) + value("v", "<int32 7>"),
    "secrets": bytes([4]) + value("a{o(oayays)}", f"{{objectpath '/org/freedesktop/secrets/collection/login/s1': {SECRET}}}"),
    "drawn-as": bytes([5, 2]) + b"as" + value("as", "['a', 'b']"),
    "drawn-sv-tuple": bytes([5, 4]) + b"(sv)" + value("(sv)", "('dh-ietf1024-sha256-aes128-cbc-pkcs7', <@ay [2]>)"),
    "drawn-nested": bytes([5, 7]) + b"a(tbuo)" + value("a(tbuo)", "[(uint64 1, true, uint32 2, objectpath '/')]"),
}

write_corpus("gvariant-attributes", SEEDS)
