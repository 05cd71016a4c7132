"""Bytes a model file carries after its last block (an editor's tag, a tool's signature), kept so
an untouched export writes them back.

Engines stop reading at the end of the last block (MD2: ``ofs_end``), so these bytes change
nothing in the game; dropping them still makes an untouched export differ from its file.
One record holds them for the import and the export (a bytes property)::

    record = SHA-1 (20 bytes) of the file's bytes before the tail ++ the tail bytes

The export appends the tail only when the bytes it writes before it are those same bytes (same
SHA-1): an edited model does not carry a tag that described another file.
"""
from __future__ import annotations

import hashlib

DIGEST_SIZE = 20


def tail_record(body: bytes, tail: bytes) -> bytes | None:
    """The record for a file whose bytes are ``body`` followed by ``tail``; None without a tail."""
    if not tail:
        return None
    return hashlib.sha1(bytes(body)).digest() + bytes(tail)


def kept_tail(record: bytes | None, body: bytes) -> bytes:
    """The tail to write after ``body``: the recorded one if ``body`` is the body it followed, else b''."""
    if not record or len(record) <= DIGEST_SIZE:
        return b""
    record = bytes(record)
    if hashlib.sha1(bytes(body)).digest() != record[:DIGEST_SIZE]:
        return b""
    return record[DIGEST_SIZE:]
