"""Values the MS3D import kept, written back while Blender still shows what the import set: raw
name and comment bytes, float32 comparisons."""
from __future__ import annotations

import zlib
from dataclasses import dataclass, field

import numpy as np

from ...common.ms3d.contract import COMMENT_PROP
from ...formats.errors import FormatError
from ...formats.message_text import quoted
from ...formats.ms3d.records import NAME_SIZE
from ...formats.ms3d.text import encode_text


def float32_equal(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    a, b = np.asarray(a, dtype=np.float32), np.asarray(b, dtype=np.float32)
    return a.shape == b.shape and bool(np.array_equal(a, b))


def raw_field(record, key: str) -> bytes | None:
    value = record.get(key) if record else None
    return bytes.fromhex(value) if isinstance(value, str) else None


def encoded(text: str, size: int | None, what: str, problems: list[str]) -> bytes:
    try:
        return encode_text(text, size, field=what)
    except FormatError:
        raw = encode_text(text)
        limit = (size or 0) - 1
        problems.append(f"{what} {quoted(text)} is {len(raw)} bytes, {len(raw) - limit} over the limit of {limit}")
        return raw[:limit].ljust(size, b"\0")


@dataclass
class MadeNames:
    """Names the product made (:mod:`...common.generated_names`, or the export's own ``<object>_<material>``)
    that do not fit MS3D's 32-byte name fields: shortened to ``<start>~<crc32>``, unique per kind, and
    each noted for the report. A name the user typed is never shortened (the export refuses it)."""
    notes: list[str] = field(default_factory=list)
    taken: dict[str, set[bytes]] = field(default_factory=dict)

    def fit(self, text: str, size: int, what: str) -> bytes | None:
        """``text`` shortened into a ``size``-byte field (NUL included), or None when it fits as it is."""
        raw = encode_text(text)
        if len(raw) < size:
            return None
        taken = self.taken.setdefault(what, set())
        digest = f"{zlib.crc32(raw):08x}"
        for attempt in range(1000):
            tail = f"~{digest[:4]}" if attempt == 0 else f"~{digest[:4]}{attempt}"
            head = text
            while head and len(encode_text(head + tail)) >= size:
                head = head[:-1]
            short = encode_text(head + tail)
            if short not in taken:
                break
        taken.add(short)
        self.notes.append(f"{what} {quoted(text)} ({len(raw)} bytes) was shortened to {quoted(head + tail)}: MS3D keeps "
                          f"{size - 1} bytes")
        return short.ljust(size, b"\0")


def kept_name(current: str, record, problems: list[str], what: str, made: MadeNames | None = None) -> bytes:
    """The stored raw name while the datablock keeps the name the import gave it, else the new name;
    ``made`` (a name the product made) shortens it when it does not fit."""
    if record and record.get("name") == current and raw_field(record, "name_raw") is not None:
        return raw_field(record, "name_raw")
    if made is not None and (short := made.fit(current, NAME_SIZE, what)) is not None:
        return short
    return encoded(current, NAME_SIZE, what, problems)


def kept_comment(id_block, record) -> bytes | None:
    if COMMENT_PROP not in id_block:
        return None
    text = str(id_block[COMMENT_PROP])
    if record and record.get("comment_shown") == text and raw_field(record, "comment_raw") is not None:
        return raw_field(record, "comment_raw")
    return encode_text(text)
