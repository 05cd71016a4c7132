"""Archives built byte by byte for tests: PACK files with any directory, zips with patched fields.

These writers are independent of ``formats.archives.archive`` (``struct`` and the standard ``zipfile``), so a
test that reads their output checks the reader against the layout, not against itself.
"""
from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path


def pack_bytes(members: list[tuple[str, bytes]]) -> bytes:
    """A well-formed PACK: header, data in order, then the directory."""
    body, entries, offset = b"", [], 12
    for name, data in members:
        entries.append((name.encode("latin-1").ljust(56, b"\0"), offset, len(data)))
        body += data
        offset += len(data)
    return raw_pack(body, entries)


def raw_pack(body: bytes, entries: list[tuple[bytes, int, int]], dirofs: int | None = None,
             dirlen: int | None = None, magic: bytes = b"PACK") -> bytes:
    """``magic``, the header, ``body`` and a directory of (56-byte name, filepos, filelen) entries;
    ``dirofs``/``dirlen`` override what the header says."""
    directory = b"".join(struct.pack("<56sii", name, pos, size) for name, pos, size in entries)
    real_ofs = 12 + len(body)
    header = struct.pack("<4sii", magic, real_ofs if dirofs is None else dirofs,
                         len(directory) if dirlen is None else dirlen)
    return header + body + directory


def zip_bytes(members: list[tuple[str, bytes]], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    stream = io.BytesIO()
    with zipfile.ZipFile(stream, "w", method) as archive:
        for name, data in members:
            archive.writestr(zipfile.ZipInfo(name), data, compress_type=method)
    return stream.getvalue()


def zip_entries(data: bytes) -> list[dict]:
    """Offsets of each member's local header and central directory record, for patching."""
    out, pos = [], 0
    while True:
        pos = data.find(b"PK\x01\x02", pos)
        if pos < 0:
            return out
        name_len = struct.unpack_from("<H", data, pos + 28)[0]
        local = struct.unpack_from("<I", data, pos + 42)[0]
        out.append({"central": pos, "local": local, "name": data[pos + 46:pos + 46 + name_len]})
        pos += 46


def patch(data: bytes, offset: int, fmt: str, *values) -> bytes:
    raw = bytearray(data)
    struct.pack_into(fmt, raw, offset, *values)
    return bytes(raw)


def patch_zip_member(data: bytes, index: int, *, flags: int | None = None, method: int | None = None,
                     file_size: int | None = None, crc: int | None = None,
                     local_offset: int | None = None) -> bytes:
    """Change one member's fields in both its local header and its central directory record."""
    entry = zip_entries(data)[index]
    c, l = entry["central"], entry["local"]
    if flags is not None:
        data = patch(patch(data, c + 8, "<H", flags), l + 6, "<H", flags)
    if method is not None:
        data = patch(patch(data, c + 10, "<H", method), l + 8, "<H", method)
    if crc is not None:
        data = patch(patch(data, c + 16, "<I", crc), l + 14, "<I", crc)
    if file_size is not None:
        data = patch(patch(data, c + 24, "<I", file_size), l + 22, "<I", file_size)
    if local_offset is not None:
        data = patch(data, c + 42, "<I", local_offset)
    return data


def write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path
