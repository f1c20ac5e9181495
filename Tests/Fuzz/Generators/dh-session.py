#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The vault authors; see LICENSE.
"""Writes the seeds of the dh-session fuzz target into Tests/Fuzz/Corpus/dh-session.

A seed is one byte n, n bytes of a client's public key (big-endian), then bytes to wrap
(and, read as a 16-byte IV and a ciphertext, to unwrap): real client keys (g^c mod p, as
libsecret and SecretStorage send them, with and without GnuTLS's leading zero byte) and
the edge cases the provider must refuse (0, 1, p - 1, p, p + 1, too long).
Run it from anywhere: python3 Tests/Fuzz/Generators/dh-session.py
"""
from seeds import write_corpus

# The Second Oakley Group's prime (RFC 2409, 6.2).
PRIME = int(
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
    "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF", 16)


def key(number, length=128):
    return number.to_bytes(length, "big")


def seed(public_key, payload=b""):
    return bytes([len(public_key)]) + public_key + payload


client = pow(2, 0x0123456789ABCDEF0123456789ABCDEF, PRIME)
small = pow(2, 1000, PRIME)  # a key whose top bytes are not all set
SEEDS = {
    "client-key": seed(key(client), b"a secret to wrap"),
    "client-key-leading-zero": seed(key(client, 129), bytes(16) + bytes(range(16, 48))),
    "client-key-empty-secret": seed(key(client)),
    "two": seed(b"\x02", b"x" * 33),
    "p-minus-two": seed(key(PRIME - 2), bytes(range(16)) + bytes([16]) * 16),
    "power-of-two": seed(key(small), bytes(range(64))),
    "zero": seed(key(0)),
    "one": seed(b"\x01"),
    "p-minus-one": seed(key(PRIME - 1)),
    "p": seed(key(PRIME)),
    "p-plus-one": seed(key(PRIME + 1, 129)),
    "too-long": seed(bytes(2) + key(client)),
    "no-key": seed(b"", b"payload"),
}

write_corpus("dh-session", SEEDS)
