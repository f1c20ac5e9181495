#!/usr/bin/env python3
"""Test vectors for vault's encrypted file format, version 1 (docs/file-format.md).

An independent implementation of the format in Python: it does not call vault and
shares no code with it, only the specification. It writes deterministic vectors (fixed
salts and nonces) into Tests/VaultStoreTests/Vectors/ and checks them by reading them
back with its own reader.

    python3 Scripts/file-format-vectors.py                  # write and verify the vectors
    python3 Scripts/file-format-vectors.py --read FILE      # decrypt a vault file (passphrase
                                                            # from $VAULT_PASSPHRASE) and print
                                                            # its items, secrets as hex

Needs the `cryptography` package (scrypt, AES-GCM, HKDF for a cross-check).
"""

import hashlib
import hmac
import json
import os
import struct
import sys
import unicodedata
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

# --- Constants (docs/file-format.md, "Header") -------------------------------------------

MAGIC = b"\x89VLT\r\n\x1a\n"
VERSION = 1
KDF_SCRYPT = 1
AEAD_AES_256_GCM = 1
SALT_SIZE = 32
NONCE_SIZE = 12
MAC_OFFSET = 65
HEADER_SIZE = 97
TAG_SIZE = 16
PADDING = 256
MAX_FILE_SIZE = 64 << 20
MAX_KDF_MEMORY = 1 << 30
HEADER_MAC_INFO = b"vault header mac v1"
BODY_AEAD_INFO = b"vault body aead v1"

KINDS = {"password": 0, "tokens": 1, "settings": 2}
KIND_NAMES = {code: name for name, code in KINDS.items()}


class VaultFormatError(Exception):
    """A refusal, classified as vault classifies it (VaultError case names)."""

    def __init__(self, case, why):
        super().__init__(f"{case}: {why}")
        self.case = case


# --- Key derivation ------------------------------------------------------------------------


def hkdf_sha256(ikm, info, length=32, salt=b""):
    """RFC 5869 HKDF-SHA256, written out (an empty salt is HMAC's zero-length key)."""
    prk = hmac.new(salt, ikm, hashlib.sha256).digest()
    out, block = b"", b""
    for counter in range(1, -(-length // 32) + 1):
        block = hmac.new(prk, block + info + bytes([counter]), hashlib.sha256).digest()
        out += block
    return out[:length]


def derive_keys(passphrase, salt, log2n, r, p):
    """(master, header key, body key) for a passphrase (bytes) and a header's salt/params."""
    if not passphrase:
        raise VaultFormatError("invalidInput", "the passphrase must not be empty")
    master = Scrypt(salt=salt, length=32, n=1 << log2n, r=r, p=p).derive(passphrase)
    header_key = hkdf_sha256(master, HEADER_MAC_INFO)
    body_key = hkdf_sha256(master, BODY_AEAD_INFO)
    # Cross-check the hand-written HKDF against the library's (salt=None means HashLen zeros,
    # which HMAC treats exactly like an empty key).
    for info, key in ((HEADER_MAC_INFO, header_key), (BODY_AEAD_INFO, body_key)):
        assert HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(master) == key
    return master, header_key, body_key


def kdf_memory(log2n, r, p):
    return 128 * r * p * (1 << log2n)


def check_readable(log2n, r, p):
    if not (1 <= log2n <= 22 and 1 <= r <= 32 and 1 <= p <= 16 and kdf_memory(log2n, r, p) <= MAX_KDF_MEMORY):
        raise VaultFormatError("corrupted", f"scrypt N=2^{log2n} r={r} p={p} is beyond the allowed cap")


# --- Body (ItemCodec) ------------------------------------------------------------------------


def default_label(server, account, kind):
    if kind == "password":
        return f"vault: {account}@{server}"
    return f"vault {kind}: {account}@{server}"


def sort_key(item):
    # Swift orders Strings by the Unicode scalars of their NFC form, which is the byte order
    # of the NFC form's UTF-8; then by kind code.
    return (
        unicodedata.normalize("NFC", item["server"]).encode(),
        unicodedata.normalize("NFC", item["account"]).encode(),
        KINDS[item["kind"]],
    )


def field(data):
    return struct.pack(">I", len(data)) + data


def encode_body(items):
    out = struct.pack(">I", len(items))
    for item in sorted(items, key=sort_key):
        out += bytes([KINDS[item["kind"]]])
        out += field(item["server"].encode("utf-8"))
        out += field(item["account"].encode("utf-8"))
        out += field(item["label"].encode("utf-8"))
        out += field(item["secret"])
    return out + b"\x00" * ((PADDING - len(out) % PADDING) % PADDING)


def decode_body(body):
    malformed = VaultFormatError("corrupted", "the decrypted contents are malformed")
    pos = 0

    def take(n):
        nonlocal pos
        if n > len(body) - pos:
            raise malformed
        pos += n
        return body[pos - n : pos]

    def take_field():
        return take(struct.unpack(">I", take(4))[0])

    def take_string():
        try:
            return take_field().decode("utf-8", errors="strict")
        except UnicodeDecodeError:
            raise malformed from None

    count = struct.unpack(">I", take(4))[0]
    if count > len(body) // 16:
        raise malformed
    items = {}
    for _ in range(count):
        code = take(1)[0]
        if code not in KIND_NAMES:
            raise malformed
        kind = KIND_NAMES[code]
        server, account, label = take_string(), take_string(), take_string()
        secret = take_field()
        item = {"server": server, "account": account, "kind": kind,
                "label": label or default_label(server, account, kind), "secret": secret}
        items[sort_key(item)] = item  # a repeated key: the later item wins
    # Whatever follows the last item (the padding) is ignored.
    return [items[k] for k in sorted(items)]


# --- File --------------------------------------------------------------------------------


def header_prefix(log2n, r, p, salt, nonce):
    assert len(salt) == SALT_SIZE and len(nonce) == NONCE_SIZE
    out = MAGIC + struct.pack(">HBBII", VERSION, KDF_SCRYPT, log2n, r, p) + salt + bytes([AEAD_AES_256_GCM]) + nonce
    assert len(out) == MAC_OFFSET
    return out


def seal(items, passphrase, log2n, r, p, salt, nonce):
    _, header_key, body_key = derive_keys(passphrase, salt, log2n, r, p)
    signed = header_prefix(log2n, r, p, salt, nonce)
    header = signed + hmac.new(header_key, signed, hashlib.sha256).digest()
    assert len(header) == HEADER_SIZE
    sealed = AESGCM(body_key).encrypt(nonce, encode_body(items), header)  # ciphertext || tag
    data = header + sealed
    if len(data) > MAX_FILE_SIZE:
        raise VaultFormatError("invalidInput", "the vault would grow past 64 MiB")
    return data


def parse_header(data):
    """The header fields, with vault's checks in vault's order."""
    if len(data) < len(MAGIC) or data[: len(MAGIC)] != MAGIC:
        raise VaultFormatError("unsupportedFormat", "not a vault file (the magic bytes are missing)")
    if len(data) < 10:
        raise VaultFormatError("corrupted", "truncated")
    (version,) = struct.unpack(">H", data[8:10])
    if version != VERSION:
        raise VaultFormatError("unsupportedFormat", f"format version {version}")
    if len(data) < HEADER_SIZE + TAG_SIZE:
        raise VaultFormatError("corrupted", "truncated")
    kdf_id, log2n, r, p = struct.unpack(">BBII", data[10:20])
    salt, aead_id, nonce = data[20:52], data[52], data[53:65]
    if kdf_id != KDF_SCRYPT:
        raise VaultFormatError("unsupportedFormat", f"unknown key-derivation id {kdf_id}")
    if aead_id != AEAD_AES_256_GCM:
        raise VaultFormatError("unsupportedFormat", f"unknown cipher id {aead_id}")
    check_readable(log2n, r, p)
    return {"version": version, "kdfID": kdf_id, "log2N": log2n, "r": r, "p": p, "salt": salt.hex(),
            "aeadID": aead_id, "nonce": nonce.hex(), "mac": data[MAC_OFFSET:HEADER_SIZE].hex()}


def open_file(data, passphrase):
    if len(data) > MAX_FILE_SIZE:
        raise VaultFormatError("corrupted", "larger than 64 MiB")
    header = parse_header(data)
    _, header_key, body_key = derive_keys(passphrase, bytes.fromhex(header["salt"]), header["log2N"], header["r"], header["p"])
    expected = hmac.new(header_key, data[:MAC_OFFSET], hashlib.sha256).digest()
    if not hmac.compare_digest(expected, data[MAC_OFFSET:HEADER_SIZE]):
        raise VaultFormatError("wrongPassphrase", "the header MAC does not match")
    try:
        body = AESGCM(body_key).decrypt(data[53:65], data[HEADER_SIZE:], data[:HEADER_SIZE])
    except InvalidTag:
        raise VaultFormatError("corrupted", "the contents fail authentication") from None
    return decode_body(body)


# --- Vectors ------------------------------------------------------------------------------

PASSPHRASE = "correct horse battery staple"
LOG2N, R, P = 10, 8, 1  # the smallest log2N vault writes (reading accepts 1...22)
SALT = bytes(range(0x01, 0x21))  # 01 02 ... 20
NONCE = bytes(range(0x02, 0x0E))  # 02 03 ... 0d
NONCE_EMPTY = bytes(range(0x03, 0x0F))  # 03 04 ... 0e: another nonce, never one nonce twice under a key

ITEMS = [
    {"server": "api.example.com", "account": "alice", "kind": "password",
     "label": "vault: alice@api.example.com", "secret": b"s3cr3t"},
    {"server": "https://git.example.com:8443/repo.git", "account": "bob", "kind": "password",
     "label": "bob's key", "secret": bytes([0x00, 0xFF, 0x0A, 0x41])},
    {"server": "https://auth.example.com", "account": "alice", "kind": "tokens",
     "label": "vault tokens: alice@https://auth.example.com", "secret": b'{"accessToken":"t"}'},
]

WRONG_MAC_OFFSET = 20 + 5  # a byte inside the salt (bytes 20..<52)
TAMPERED_OFFSET = HEADER_SIZE + 10  # a byte of the ciphertext


def item_json(item):
    return {"server": item["server"], "account": item["account"], "kind": item["kind"],
            "label": item["label"], "secretHex": item["secret"].hex()}


def flip(data, offset):
    out = bytearray(data)
    out[offset] ^= 0x01
    return bytes(out)


def self_test():
    """Checks of the codec beyond the vectors: padding at the 256-byte boundary, the reader's
    refusals."""
    for secret_size in range(200, 700):
        items = [{"server": "s", "account": "a", "kind": "password", "label": "l", "secret": b"x" * secret_size}]
        body = encode_body(items)
        unpadded = 4 + 1 + 4 * 4 + 3 + secret_size
        assert len(body) % PADDING == 0 and len(body) - unpadded < PADDING and len(body) >= unpadded
        assert decode_body(body) == items
    assert len(encode_body([])) == PADDING
    for bad in (b"", b"\x00\x00\x00\x01" + b"\x00" * 12, b"\x00\x00\x00\x01\x03" + b"\x00" * 251,
                b"\x00\x00\x00\x01\x00\x00\x00\x00\x02\xc3\x28" + b"\x00" * 245):
        try:
            decode_body(bad)
            raise AssertionError("decoded a malformed body")
        except VaultFormatError as error:
            assert error.case == "corrupted"


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--read":
        passphrase = os.environ.get("VAULT_PASSPHRASE", "").encode()
        data = Path(sys.argv[2]).read_bytes()
        try:
            header = parse_header(data)
            items = open_file(data, passphrase)
        except VaultFormatError as error:
            print(f"refused: {error}")
            return 3
        print(json.dumps({"header": header, "items": [item_json(i) for i in items]}, indent=2))
        return 0
    if len(sys.argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2

    self_test()
    out_dir = Path(__file__).resolve().parent.parent / "Tests" / "VaultStoreTests" / "Vectors"
    out_dir.mkdir(parents=True, exist_ok=True)
    passphrase = PASSPHRASE.encode()

    two_items = seal(ITEMS, passphrase, LOG2N, R, P, SALT, NONCE)
    empty = seal([], passphrase, LOG2N, R, P, SALT, NONCE_EMPTY)
    wrong_mac = flip(two_items, WRONG_MAC_OFFSET)
    tampered = flip(two_items, TAMPERED_OFFSET)

    # Verify with the reader (the writer's output, decrypted again).
    expected = sorted(ITEMS, key=sort_key)
    assert open_file(two_items, passphrase) == expected
    assert open_file(empty, passphrase) == []
    for data, case in ((wrong_mac, "wrongPassphrase"), (tampered, "corrupted"), (two_items, "wrongPassphrase")):
        try:
            open_file(data, passphrase if data is not two_items else b"not the passphrase")
            raise AssertionError(f"expected {case}")
        except VaultFormatError as error:
            assert error.case == case, error
    assert len(two_items) == HEADER_SIZE + PADDING + TAG_SIZE

    master, header_key, body_key = derive_keys(passphrase, SALT, LOG2N, R, P)
    intermediates = {"scryptOutput": master.hex(), "headerKey": header_key.hex(), "bodyKey": body_key.hex(),
                     "body": encode_body(ITEMS).hex()}
    files = [
        ("v1-two-items.vault", two_items, {"items": [item_json(i) for i in expected]},
         "three items (two passwords, one tokens item), body 256 bytes", intermediates),
        ("v1-empty.vault", empty, {"items": []}, "no items: item count 0 and 252 bytes of padding",
         {"scryptOutput": master.hex(), "headerKey": header_key.hex(), "bodyKey": body_key.hex(),
          "body": encode_body([]).hex()}),
        ("v1-wrong-mac.vault", wrong_mac, {"error": "wrongPassphrase"},
         f"v1-two-items.vault with byte {WRONG_MAC_OFFSET} (inside the salt) XOR 0x01: the header MAC fails", None),
        ("v1-tampered-body.vault", tampered, {"error": "corrupted"},
         f"v1-two-items.vault with byte {TAMPERED_OFFSET} (ciphertext) XOR 0x01: the header MAC holds, the GCM tag fails", None),
    ]
    vectors = []
    for name, data, expect, comment, keys in files:
        (out_dir / name).write_bytes(data)
        entry = {"file": name, "comment": comment, "passphrase": PASSPHRASE, "size": len(data),
                 "sha256": hashlib.sha256(data).hexdigest(), "header": parse_header(data), "expect": expect}
        if keys:
            entry["derived"] = keys
        vectors.append(entry)
    manifest = {"format": "vault encrypted file, format version 1", "spec": "docs/file-format.md",
                "generator": "Scripts/file-format-vectors.py", "vectors": vectors}
    (out_dir / "vectors.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")

    print(f"wrote {len(vectors)} vectors and vectors.json to {out_dir}")
    for entry in vectors:
        outcome = (f"{len(entry['expect']['items'])} items" if "items" in entry["expect"]
                   else entry["expect"]["error"])
        print(f"  {entry['file']:<24} {entry['size']:>4} bytes  sha256 {entry['sha256']}  -> {outcome}")
    print("verified: v1-two-items.vault and v1-empty.vault decrypt to the expected items; "
          "wrong-mac -> wrongPassphrase, tampered-body -> corrupted, wrong passphrase -> wrongPassphrase")
    return 0


if __name__ == "__main__":
    sys.exit(main())
