"""Bounds-checked reads from a byte buffer.

Every read checks the byte count against the buffer before touching it, so a header that claims
two billion records fails with :class:`FormatError` instead of allocating.
"""
from __future__ import annotations

import numpy as np

from .errors import FormatError
from .message_text import quoted


def check_span(data: bytes, offset: int, size: int, field: str) -> None:
    """Raise unless ``data[offset:offset+size]`` lies inside the buffer."""
    if offset < 0 or size < 0 or offset + size > len(data):
        raise FormatError(
            f"needs {size} bytes at offset {offset}, file has {len(data)}",
            field=field, offset=offset)


def read_records(data: bytes, offset: int, dtype: np.dtype, count: int, field: str) -> np.ndarray:
    """``count`` records of ``dtype`` at ``offset``, copied out of the buffer."""
    dtype = np.dtype(dtype)
    if count < 0:
        raise FormatError(f"negative count {count}", field=field, offset=offset)
    check_span(data, offset, dtype.itemsize * count, field)
    return np.frombuffer(data, dtype=dtype, count=count, offset=offset).copy()


def read_struct(data: bytes, offset: int, dtype: np.dtype, field: str) -> np.void:
    """One record of ``dtype`` at ``offset``."""
    return read_records(data, offset, dtype, 1, field)[0]


def name_fields(names: np.ndarray) -> list[bytes]:
    """Fixed-size name fields read as a numpy ``S<n>`` column, each whole (``n`` bytes): numpy drops a
    field's trailing NULs, which would cut ``chain0\\0MedDLe\\0\\0`` to 13 bytes and lose the field."""
    size = np.dtype(names.dtype).itemsize
    return [bytes(n).ljust(size, b"\0") for n in names]


def has_junk(fields: list[bytes]) -> bool:
    """True if a NUL-padded field carries bytes after its first NUL (or has no NUL at all)."""
    return any(b"\0" not in f or f.split(b"\0", 1)[1].strip(b"\0") for f in fields)


def decode_name(raw: bytes) -> str:
    """A NUL-padded fixed-size name: bytes up to the first NUL, as Latin-1 (never fails)."""
    return raw.split(b"\0", 1)[0].decode("latin-1")


def encode_name(name: str, size: int, field: str) -> bytes:
    """``name`` as Latin-1, NUL-padded to ``size`` bytes with at least one NUL."""
    try:
        raw = name.encode("latin-1")
    except UnicodeEncodeError as exc:
        raise FormatError(f"name {quoted(name)} has characters outside Latin-1", field=field) from exc
    if len(raw) >= size:
        raise FormatError(f"name {quoted(name)} is {len(raw)} bytes, at most {size - 1} fit "
                          f"(the last byte of the field is kept for the NUL that ends the name)", field=field)
    return raw.ljust(size, b"\0")


def name_length_problem(what: str, name: str, size: int) -> str | None:
    """Why a new or changed ``name`` cannot go into a ``size``-byte field, or None if it fits.

    Engines read these fields as C strings (Quake's ``Mod_LoadAliasFrame`` copies the frame name with
    ``strcpy``; Quake II's ``Mod_LoadAliasModel`` passes each 64-byte skin field to ``GL_FindImage``), so a
    name the export writes anew leaves room for its NUL: ``size - 1`` characters at most. A name the
    file filled to the last byte is only written back from the field it was read from (byte for byte)."""
    length = len(name.encode("latin-1", "replace"))
    if length < size:
        return None
    return (f"{what} {quoted(name)} is {length} characters, {length - size + 1} over the limit of {size - 1} "
            f"(a new or changed name leaves the last of the field's {size} bytes for the NUL that ends it)")


def require_finite(values: np.ndarray, field: str, offset: int) -> None:
    if not np.all(np.isfinite(values)):
        raise FormatError("non-finite float", field=field, offset=offset)


def uncovered_runs(body: bytes, spans: list[tuple[int, int]]) -> list[tuple[int, bytes]]:
    """(offset, bytes) of each run of ``body`` that no block covers (padding, unreferenced bytes): ``spans``
    are the blocks' (offset, size), each within ``body``; a run ends where the next span starts beyond all
    the earlier ones' reach. The MD3 and IQM readers keep them, so an untouched model is written back whole."""
    runs, reach = [], 0
    for offset, size in sorted(spans):
        if size <= 0:
            continue
        if offset > reach:
            runs.append((reach, body[reach:offset]))
        reach = max(reach, offset + size)
    if reach < len(body):
        runs.append((reach, body[reach:]))
    return runs
