"""Values the MS3D import kept, written back while Blender still shows what the import set: raw
name and comment bytes, float32 comparisons."""
from __future__ import annotations

import numpy as np

from ...formats.errors import FormatError
from ...formats.ms3d.codec import NAME_SIZE, encode_text
from ...common.contract import COMMENT_PROP


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
        problems.append(f"{what} {text!r} is {len(raw)} bytes, {len(raw) - limit} over the limit of {limit}")
        return raw[:limit].ljust(size, b"\0")


def kept_name(current: str, record, problems: list[str], what: str) -> bytes:
    """The stored raw name while the datablock keeps the name the import gave it, else the new name."""
    if record and record.get("name") == current and raw_field(record, "name_raw") is not None:
        return raw_field(record, "name_raw")
    return encoded(current, NAME_SIZE, what, problems)


def kept_comment(id_block, record) -> bytes | None:
    if COMMENT_PROP not in id_block:
        return None
    text = str(id_block[COMMENT_PROP])
    if record and record.get("comment_shown") == text and raw_field(record, "comment_raw") is not None:
        return raw_field(record, "comment_raw")
    return encode_text(text)
