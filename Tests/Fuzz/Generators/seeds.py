# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The vault authors; see LICENSE.
"""What the seed generators share: GLib's own GVariant serializer (through ctypes, so a
seed carries the bytes a client's message would) and writing a target's corpus folder."""
import ctypes
import os

_glib = ctypes.CDLL("libglib-2.0.so.0")
_glib.g_variant_type_new.restype = ctypes.c_void_p
_glib.g_variant_type_new.argtypes = [ctypes.c_char_p]
_glib.g_variant_parse.restype = ctypes.c_void_p
_glib.g_variant_parse.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
_glib.g_variant_get_size.restype = ctypes.c_size_t
_glib.g_variant_get_size.argtypes = [ctypes.c_void_p]
_glib.g_variant_get_data.restype = ctypes.c_void_p
_glib.g_variant_get_data.argtypes = [ctypes.c_void_p]


def serialized(signature, text):
    """The serialized bytes of `text` (GVariant text format) as `signature`."""
    value = _glib.g_variant_parse(_glib.g_variant_type_new(signature.encode()), text.encode(), None, None, None)
    assert value, f"GLib cannot parse {text} as {signature}"
    size = _glib.g_variant_get_size(value)
    return ctypes.string_at(_glib.g_variant_get_data(value), size) if size else b""


def write_corpus(target, seeds):
    """Writes each seed (name: bytes) into Tests/Fuzz/Corpus/TARGET."""
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Corpus", target)
    for name, data in seeds.items():
        with open(os.path.join(folder, name), "wb") as file:
            file.write(data)
