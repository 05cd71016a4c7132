"""File names on disk that are not UTF-8, as Python holds them (bpy-free).

Old Windows mods unpacked on Linux keep Latin-1 names (``sk\\xe9n.pcx``); Python lists them as ``str``
with surrogate escapes (PEP 383), which Blender refuses wherever it takes a string (names, paths,
ID properties, reports). Such a file is found by its bytes, read by Python and handed to Blender as
bytes (never as a path); people see its name decoded as UTF-8, else Latin-1; ID properties keep the
exact bytes so an export can copy the very file back. Finding such a file by its bytes is
:mod:`..formats.archives.skin_lookup`'s (``name_keys``)."""
from __future__ import annotations

import os


def readable_name(name: str) -> str:
    """``name`` as a person reads it: its bytes as UTF-8, else as Latin-1 (never surrogate escapes)."""
    raw = os.fsencode(name)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def blender_safe(text: str) -> bool:
    """True when Blender can take ``text`` as a string (it holds no surrogate escapes)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def storable_path(path: str) -> str | bytes:
    """``path`` for an ID property: the string, or its bytes on disk when Blender cannot hold the string."""
    return path if blender_safe(path) else os.fsencode(path)


def stored_path(value: object) -> str:
    """The path :func:`storable_path` stored (``""`` for None), as Python opens it."""
    if value is None:
        return ""
    if isinstance(value, (bytes, bytearray)):
        return os.fsdecode(bytes(value))
    return str(value)


def readable_text(text: str) -> str:
    """``text`` (a message naming such files) with each surrogate-escaped byte read as Latin-1."""
    if blender_safe(text):
        return text
    return "".join(chr(ord(c) - 0xDC00) if 0xDC80 <= ord(c) <= 0xDCFF else c for c in text)


def readable_report(report):
    """An operator's ``report`` that shows names of files on disk that are not UTF-8 as a person reads them
    (:func:`readable_text`; Blender refuses a report holding surrogate-escaped bytes)."""
    return lambda level, text: report(level, readable_text(text))


def disk_spelling(stored: str) -> str:
    """The name on disk the game opens for a stored name: the file holds Latin-1 bytes, and the game
    passes them to the file system as they are (``sk\\xe9n.pcx``, not its UTF-8 spelling)."""
    try:
        return os.fsdecode(stored.encode("latin-1"))
    except UnicodeEncodeError:
        return stored
