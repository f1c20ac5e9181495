#!/usr/bin/env python3
"""Test vectors for vault's encrypted file format, versions 1 and 2 (docs/file-format.md).

An independent implementation of the format in Python: it does not call vault and
shares no code with it, only the specification. It writes deterministic vectors (fixed
salts and nonces) into Tests/VaultStoreTests/Vectors/ and checks them by reading them
back with its own reader.

    python3 Scripts/file-format-vectors.py                  # write and verify the vectors
    python3 Scripts/file-format-vectors.py --read FILE      # decrypt a vault file (passphrase
                                                            # from $VAULT_PASSPHRASE) and print
                                                            # its items, secrets as hex
    python3 Scripts/file-format-vectors.py --write-v2 FILE  # write FILE as version 2 with the
                                                            # v2-service-items contents (passphrase
                                                            # from $VAULT_PASSPHRASE, log2N 10)

Needs the `cryptography` package (scrypt, AES-GCM, HKDF for a cross-check).
"""

import hashlib
import hmac
import json
import os
import re
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
VERSIONS = (1, 2)
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


def encode_items(items):
    """The item section (version 1's whole body before the padding)."""
    out = struct.pack(">I", len(items))
    for item in sorted(items, key=sort_key):
        out += bytes([KINDS[item["kind"]]])
        out += field(item["server"].encode("utf-8"))
        out += field(item["account"].encode("utf-8"))
        out += field(item["label"].encode("utf-8"))
        out += field(item["secret"])
    return out


def pad(out):
    return out + b"\x00" * ((PADDING - len(out) % PADDING) % PADDING)


def encode_body(items):
    """A version 1 body."""
    return pad(encode_items(items))


LOGIN = "login"
ID_PATTERN = re.compile(r"[A-Za-z0-9_]{1,64}")  # used with fullmatch
MIN_COLLECTION = 4 + 1 + 4 + 8 + 8
MIN_SERVICE_ITEM = 4 + 1 + 4 + 1 + 4 + 4 + 8 + 8 + 4 + 4
MIN_ATTRIBUTE = 8


def encode_service_sections(collections, service_items):
    """Version 2's collections section and Secret Service items section (docs/file-format.md,
    "Body, version 2"), sorted as vault sorts them: collections by id, items by (collection,
    id), attributes by the UTF-8 bytes of their names. Writes whatever it is given: the
    malformed vectors are written with it."""
    out = struct.pack(">I", len(collections))
    for c in sorted(collections, key=lambda c: c["id"].encode()):
        out += field(c["id"].encode()) + field(c["label"].encode("utf-8")) + struct.pack(">QQ", c["created"], c["modified"])
    out += struct.pack(">I", len(service_items))
    for i in sorted(service_items, key=lambda i: (i["collection"].encode(), i["id"].encode())):
        out += field(i["collection"].encode()) + field(i["id"].encode()) + field(i["label"].encode("utf-8"))
        out += field(i["contentType"].encode("utf-8")) + struct.pack(">QQ", i["created"], i["modified"])
        attributes = sorted(i["attributes"].items(), key=lambda a: a[0].encode("utf-8"))
        out += struct.pack(">I", len(attributes))
        for name, value in attributes:
            out += field(name.encode("utf-8")) + field(value.encode("utf-8"))
        out += field(i["secret"])
    return out


def encode_body_v2(items, collections, service_items):
    """A version 2 body: the item section, the two new sections, the padding."""
    return pad(encode_items(items) + encode_service_sections(collections, service_items))


def decode_body(body, version=1):
    """{"items", "collections", "serviceItems"} of a body of `version`, with vault's refusals."""
    malformed = VaultFormatError("corrupted", "the decrypted contents are malformed")
    pos = 0

    def take(n):
        nonlocal pos
        if n > len(body) - pos:
            raise malformed
        pos += n
        return body[pos - n : pos]

    def take_u32():
        return struct.unpack(">I", take(4))[0]

    def take_u64():
        return struct.unpack(">Q", take(8))[0]

    def take_field():
        return take(take_u32())

    def take_string():
        try:
            return take_field().decode("utf-8", errors="strict")
        except UnicodeDecodeError:
            raise malformed from None

    def take_id():
        value = take_string()
        if not ID_PATTERN.fullmatch(value):
            raise malformed
        return value

    count = take_u32()
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
    contents = {"items": [items[k] for k in sorted(items)], "collections": [], "serviceItems": []}
    if version == 1:
        # Whatever follows the last item (the padding) is ignored.
        return contents

    count = take_u32()
    if count > (len(body) - pos) // MIN_COLLECTION:
        raise malformed
    collections = {}
    for _ in range(count):
        cid = take_id()
        if cid == LOGIN or cid in collections:
            raise malformed
        label = take_string()
        collections[cid] = {"id": cid, "label": label, "created": take_u64(), "modified": take_u64()}
    count = take_u32()
    if count > (len(body) - pos) // MIN_SERVICE_ITEM:
        raise malformed
    service_items = {}
    for _ in range(count):
        collection = take_id()
        if collection != LOGIN and collection not in collections:
            raise malformed
        iid = take_id()
        if (collection, iid) in service_items:
            raise malformed
        label, content_type = take_string(), take_string()
        created, modified = take_u64(), take_u64()
        attribute_count = take_u32()
        if attribute_count > (len(body) - pos) // MIN_ATTRIBUTE:
            raise malformed
        attributes = {}
        for _ in range(attribute_count):
            name = take_string()
            if name in attributes:
                raise malformed
            attributes[name] = take_string()
        service_items[(collection, iid)] = {
            "collection": collection, "id": iid, "label": label, "contentType": content_type,
            "created": created, "modified": modified, "attributes": attributes, "secret": take_field()}
    # Whatever follows the last section (the padding) is ignored.
    contents["collections"] = [collections[k] for k in sorted(collections, key=str.encode)]
    contents["serviceItems"] = [service_items[k] for k in sorted(service_items, key=lambda r: (r[0].encode(), r[1].encode()))]
    return contents


# --- File --------------------------------------------------------------------------------


def header_prefix(log2n, r, p, salt, nonce, version=1):
    assert len(salt) == SALT_SIZE and len(nonce) == NONCE_SIZE and version in VERSIONS
    out = MAGIC + struct.pack(">HBBII", version, KDF_SCRYPT, log2n, r, p) + salt + bytes([AEAD_AES_256_GCM]) + nonce
    assert len(out) == MAC_OFFSET
    return out


def seal(items, passphrase, log2n, r, p, salt, nonce, version=1, body=None):
    """A version 1 file of `items`, or a file of `version` around the given plaintext `body`."""
    _, header_key, body_key = derive_keys(passphrase, salt, log2n, r, p)
    signed = header_prefix(log2n, r, p, salt, nonce, version)
    header = signed + hmac.new(header_key, signed, hashlib.sha256).digest()
    assert len(header) == HEADER_SIZE
    plain = encode_body(items) if body is None else body
    sealed = AESGCM(body_key).encrypt(nonce, plain, header)  # ciphertext || tag
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
    if version not in VERSIONS:
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
    """The items of a version 1 file (a version 2 file's Secret Service items: open_contents)."""
    return open_contents(data, passphrase)["items"]


def open_contents(data, passphrase):
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
    return decode_body(body, header["version"])


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


NONCE_V2 = bytes(range(0x04, 0x10))  # 04 05 ... 0f
NONCE_V2_EMPTY = bytes(range(0x05, 0x11))
NONCE_V2_UNKNOWN = bytes(range(0x06, 0x12))
NONCE_V2_HUGE = bytes(range(0x07, 0x13))

COLLECTIONS = [{"id": "work_2", "label": "Travail — été", "created": 1764000000, "modified": 1764000100}]

SERVICE_ITEMS = [
    {"collection": "login", "id": "i1", "label": "git: https://git.example.com (alice)", "contentType": "text/plain",
     "created": 1764100000, "modified": 1764100000,
     "attributes": {"xdg:schema": "org.gnome.keyring.NetworkPassword", "protocol": "https", "server": "git.example.com",
                    "user": "alice"},
     "secret": b"hunter2"},
    {"collection": "login", "id": "i2", "label": "Ünïcødé 🔑 label", "contentType": "application/octet-stream",
     "created": 1764100001, "modified": 1764200002,
     "attributes": {"xdg:schema": "org.freedesktop.Secret.Generic", "service": "svc", "username": "bøb", "é": "ü"},
     "secret": bytes([0x00, 0xFF, 0x80, 0x0A])},
    {"collection": "work_2", "id": "a_1", "label": "", "contentType": "text/plain",
     "created": 0, "modified": 18446744073709551615, "attributes": {}, "secret": b""},
]


def item_json(item):
    return {"server": item["server"], "account": item["account"], "kind": item["kind"],
            "label": item["label"], "secretHex": item["secret"].hex()}


def service_item_json(item):
    out = {k: v for k, v in item.items() if k != "secret"}
    out["secretHex"] = item["secret"].hex()
    return out


def contents_json(contents):
    return {"items": [item_json(i) for i in contents["items"]], "collections": contents["collections"],
            "serviceItems": [service_item_json(i) for i in contents["serviceItems"]]}


def flip(data, offset):
    out = bytearray(data)
    out[offset] ^= 0x01
    return bytes(out)


def expect_malformed(body, version):
    try:
        decode_body(body, version)
    except VaultFormatError as error:
        assert error.case == "corrupted", error
        return
    raise AssertionError(f"decoded a malformed body: {body[:64].hex()}")


def self_test():
    """Checks of the codec beyond the vectors: padding at the 256-byte boundary, the reader's
    refusals."""
    for secret_size in range(200, 700):
        items = [{"server": "s", "account": "a", "kind": "password", "label": "l", "secret": b"x" * secret_size}]
        body = encode_body(items)
        unpadded = 4 + 1 + 4 * 4 + 3 + secret_size
        assert len(body) % PADDING == 0 and len(body) - unpadded < PADDING and len(body) >= unpadded
        assert decode_body(body)["items"] == items
    assert len(encode_body([])) == PADDING
    for bad in (b"", b"\x00\x00\x00\x01" + b"\x00" * 12, b"\x00\x00\x00\x01\x03" + b"\x00" * 251,
                b"\x00\x00\x00\x01\x00\x00\x00\x00\x02\xc3\x28" + b"\x00" * 245):
        expect_malformed(bad, 1)
    # Version 2: the round trip, and each refusal of the new sections.
    contents = decode_body(encode_body_v2(ITEMS, COLLECTIONS, SERVICE_ITEMS), 2)
    assert contents["items"] == sorted(ITEMS, key=sort_key)
    assert contents["collections"] == COLLECTIONS
    assert contents["serviceItems"] == sorted(SERVICE_ITEMS, key=lambda i: (i["collection"], i["id"]))
    assert decode_body(encode_body_v2([], [], []), 2) == {"items": [], "collections": [], "serviceItems": []}
    item = dict(SERVICE_ITEMS[0])
    collection = dict(COLLECTIONS[0])
    for collections, service_items in (
        ([], [dict(item, collection="nowhere")]),                 # an item in a collection that does not exist
        ([dict(collection, id="login")], []),                     # a login collection record
        ([collection, collection], []),                           # one collection twice
        ([], [item, item]),                                       # one reference twice
        ([], [dict(item, id="")]),                                # an empty id
        ([], [dict(item, id="a-b")]),                             # a character outside [A-Za-z0-9_]
        ([], [dict(item, id="x" * 65)]),                          # a 65-byte id
        ([dict(collection, id="é")], []),                         # a non-ASCII id
    ):
        expect_malformed(pad(encode_items([]) + encode_service_sections(collections, service_items)), 2)
    empty = encode_items([])
    for tail in (b"\xff\xff\xff\xff",                                       # a collection count beyond the body
                 b"\x00\x00\x00\x00\xff\xff\xff\xff",                       # an item count beyond the body
                 b"\x00\x00\x00\x00",                                       # no item section at all
                 b"\x00\x00\x00\x01\x00\x00\x00\x02\xc3\x28" + b"\x00" * 20):  # an id that is not UTF-8
        expect_malformed(empty + tail, 2)
    attributes = encode_service_sections([], [dict(item, attributes={"a": "1"})])
    cut = attributes.index(b"\x00\x00\x00\x01\x00\x00\x00\x01a")
    expect_malformed(pad(empty + attributes[:cut] + b"\x7f\xff\xff\xff" + attributes[cut + 4:]), 2)  # attribute count
    twice = attributes[:cut] + b"\x00\x00\x00\x02" + attributes[cut + 4:cut + 4 + 10] * 2 + attributes[cut + 4 + 10:]
    expect_malformed(pad(empty + twice), 2)  # one attribute name twice
    bad_utf8 = attributes.replace(b"\x00\x00\x00\x01a", b"\x00\x00\x00\x01\xff")
    expect_malformed(pad(empty + bad_utf8), 2)  # an attribute name that is not UTF-8


def v2_service_items_file(passphrase, nonce=NONCE_V2, log2n=LOG2N, salt=SALT):
    return seal(None, passphrase, log2n, R, P, salt, nonce, 2, encode_body_v2(ITEMS, COLLECTIONS, SERVICE_ITEMS))


def main():
    if len(sys.argv) == 3 and sys.argv[1] in ("--read", "--write-v2"):
        passphrase = os.environ.get("VAULT_PASSPHRASE", "").encode()
        if sys.argv[1] == "--write-v2":
            data = v2_service_items_file(passphrase, nonce=os.urandom(NONCE_SIZE), salt=os.urandom(SALT_SIZE))
            fd = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            return 0
        data = Path(sys.argv[2]).read_bytes()
        try:
            header = parse_header(data)
            contents = open_contents(data, passphrase)
        except VaultFormatError as error:
            print(f"refused: {error}")
            return 3
        print(json.dumps({"header": header, **contents_json(contents)}, indent=2, ensure_ascii=False))
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
    v2_body = encode_body_v2(ITEMS, COLLECTIONS, SERVICE_ITEMS)
    v2_items = v2_service_items_file(passphrase)
    v2_empty_body = encode_body_v2([], [], [])
    v2_empty = seal(None, passphrase, LOG2N, R, P, SALT, NONCE_V2_EMPTY, 2, v2_empty_body)
    v2_unknown = seal(None, passphrase, LOG2N, R, P, SALT, NONCE_V2_UNKNOWN, 2,
                      pad(encode_items(ITEMS) + encode_service_sections([], [SERVICE_ITEMS[2]])))
    v2_huge = seal(None, passphrase, LOG2N, R, P, SALT, NONCE_V2_HUGE, 2, pad(encode_items(ITEMS) + b"\xff\xff\xff\xff"))

    # Verify with the reader (the writer's output, decrypted again).
    expected = sorted(ITEMS, key=sort_key)
    assert open_file(two_items, passphrase) == expected
    assert open_file(empty, passphrase) == []
    v2_expected = open_contents(v2_items, passphrase)
    assert v2_expected["items"] == expected and v2_expected["collections"] == COLLECTIONS
    assert len(v2_expected["serviceItems"]) == len(SERVICE_ITEMS)
    assert open_contents(v2_empty, passphrase) == {"items": [], "collections": [], "serviceItems": []}
    for data, case in ((wrong_mac, "wrongPassphrase"), (tampered, "corrupted"), (two_items, "wrongPassphrase"),
                       (v2_unknown, "corrupted"), (v2_huge, "corrupted"), (v2_items, "wrongPassphrase")):
        try:
            open_file(data, passphrase if data not in (two_items, v2_items) else b"not the passphrase")
            raise AssertionError(f"expected {case}")
        except VaultFormatError as error:
            assert error.case == case, error
    assert len(two_items) == HEADER_SIZE + PADDING + TAG_SIZE

    master, header_key, body_key = derive_keys(passphrase, SALT, LOG2N, R, P)

    def derived(body):
        return {"scryptOutput": master.hex(), "headerKey": header_key.hex(), "bodyKey": body_key.hex(), "body": body.hex()}

    files = [
        ("v1-two-items.vault", two_items, {"items": [item_json(i) for i in expected]},
         "three items (two passwords, one tokens item), body 256 bytes", derived(encode_body(ITEMS))),
        ("v1-empty.vault", empty, {"items": []}, "no items: item count 0 and 252 bytes of padding",
         derived(encode_body([]))),
        ("v1-wrong-mac.vault", wrong_mac, {"error": "wrongPassphrase"},
         f"v1-two-items.vault with byte {WRONG_MAC_OFFSET} (inside the salt) XOR 0x01: the header MAC fails", None),
        ("v1-tampered-body.vault", tampered, {"error": "corrupted"},
         f"v1-two-items.vault with byte {TAMPERED_OFFSET} (ciphertext) XOR 0x01: the header MAC holds, the GCM tag fails", None),
        ("v2-service-items.vault", v2_items, contents_json(v2_expected),
         "version 2: the three items of v1-two-items.vault, one collection (work_2) and three Secret Service items "
         "(xdg:schema attributes, a binary secret, an empty secret and label, unicode)", derived(v2_body)),
        ("v2-empty.vault", v2_empty, contents_json(open_contents(v2_empty, passphrase)),
         "version 2 with empty sections (vault writes such contents as version 1, but reads them at either)",
         derived(v2_empty_body)),
        ("v2-unknown-collection.vault", v2_unknown, {"error": "corrupted"},
         "version 2 whose item is in collection work_2, which has no record: malformed", None),
        ("v2-huge-count.vault", v2_huge, {"error": "corrupted"},
         "version 2 whose collection count is 0xffffffff: more than the body can hold, malformed", None),
    ]
    vectors = []
    for name, data, expect, comment, keys in files:
        (out_dir / name).write_bytes(data)
        entry = {"file": name, "comment": comment, "passphrase": PASSPHRASE, "size": len(data),
                 "sha256": hashlib.sha256(data).hexdigest(), "header": parse_header(data), "expect": expect}
        if keys:
            entry["derived"] = keys
        vectors.append(entry)
    manifest = {"format": "vault encrypted file, format versions 1 and 2", "spec": "docs/file-format.md",
                "generator": "Scripts/file-format-vectors.py", "vectors": vectors}
    (out_dir / "vectors.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")

    print(f"wrote {len(vectors)} vectors and vectors.json to {out_dir}")
    for entry in vectors:
        outcome = (f"{len(entry['expect']['items'])} items" if "items" in entry["expect"]
                   else entry["expect"]["error"])
        print(f"  {entry['file']:<28} {entry['size']:>4} bytes  sha256 {entry['sha256']}  -> {outcome}")
    print("verified: the readable vectors decrypt to the expected contents; wrong-mac -> wrongPassphrase, "
          "tampered-body, unknown-collection, huge-count -> corrupted, wrong passphrase -> wrongPassphrase")
    return 0


if __name__ == "__main__":
    sys.exit(main())
