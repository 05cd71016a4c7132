"""Text in MS3D files: fixed NUL-padded fields in the author's code page (bpy-free)."""
from __future__ import annotations

from ..errors import FormatError
from ..message_text import quoted

NAME_ENCODINGS = {"AUTO": "auto", "UTF8": "utf-8", "CP1252": "cp1252", "GBK": "gbk",
                  "SHIFT_JIS": "shift_jis", "CP1251": "cp1251"}   # option value -> Python codec


def decode_text(raw: bytes, encoding: str = "auto") -> str:
    """Text up to the first NUL in ``encoding`` (a Python codec name). ``auto`` (and a codec the
    bytes are not valid in): UTF-8 when valid, else cp1252, else Latin-1 (never fails)."""
    text = bytes(raw).split(b"\0", 1)[0]
    codecs = ("utf-8", "cp1252") if encoding == "auto" else (encoding, "utf-8", "cp1252")
    for codec in codecs:
        try:
            return text.decode(codec)
        except UnicodeDecodeError:
            pass
    return text.decode("latin-1")


def encode_text(text: str, size: int | None = None, field: str = "text", encoding: str = "auto") -> bytes:
    """``text`` as bytes :func:`decode_text` reads back with ``encoding``: in that codec when it can,
    else (and for ``auto``) cp1252 when it can, else UTF-8.

    With ``size``, NUL-padded to a fixed field of ``size`` bytes keeping at least one NUL.
    """
    raw = None
    for codec in ((encoding,) if encoding != "auto" else ()) + ("cp1252",):
        try:
            candidate = text.encode(codec)
        except UnicodeEncodeError:
            continue
        if decode_text(candidate, encoding) == text:
            raw = candidate
            break
    if raw is None:
        raw = text.encode("utf-8")
    if size is None:
        return raw
    if len(raw) >= size:
        raise FormatError(f"{quoted(text)} is {len(raw)} bytes, at most {size - 1} fit", field=field)
    return raw.ljust(size, b"\0")
