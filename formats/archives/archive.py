"""Quake PACK (``.pak``) and zip (``.pk3``) archives: list the directory, read one member, write.

PACK layout (Quake ``common.c`` ``COM_LoadPackFile``, Quake II ``files.c`` ``FS_LoadPackFile``)::

    header   12 bytes   char magic[4] = "PACK"; int32 dirofs; int32 dirlen
    entry    64 bytes   char name[56] (NUL-terminated); int32 filepos; int32 filelen
    directory = dirlen / 64 entries at dirofs; member data anywhere in the file

PK3 is a plain zip (stored or deflate members), read with the standard library's ``zipfile`` for the
central directory only; a member is inflated here, with a bound, so a member that grows past the
size it declares stops there (a zip bomb) instead of filling memory.

Opening reads the header and the directory, never member data; :meth:`Archive.read` reads one member.
A broken directory (outside the file, or overlapping the 12-byte header) refuses the whole archive
(:class:`ArchiveError`). A broken entry (data outside the file or overlapping the header or the directory,
negative size, a name without NUL, an absolute name or one with ``..`` or a drive letter, an
encrypted or unsupported zip member) is left out of :meth:`Archive.members` and kept in
:attr:`Archive.problems`; reading it raises that error. Duplicate names and members sharing bytes are
:attr:`Archive.warnings`; the first entry of a name wins in a PACK, as in Quake's and Quake II's
linear directory search; in a PK3 the last one wins, as in Quake III's ``FS_LoadZipFile`` hash chains.
"""
from __future__ import annotations

import os
import re
import struct
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..atomic_file import replacing
from ..errors import FormatError
from ..message_text import printable, quoted

PACK_MAGIC = b"PACK"
PACK_HEADER = struct.Struct("<4sii")
PACK_ENTRY = np.dtype([("name", "S56"), ("filepos", "<i4"), ("filelen", "<i4")])
PACK_NAME_BYTES = 56
MAX_PACK_ENTRIES = 1 << 20
MAX_MEMBER_SIZE = 1 << 30
ZIP_LOCAL_HEADER = struct.Struct("<4s5H3I2H")
ZIP_LOCAL_MAGIC = b"PK\x03\x04"
ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")
ARCHIVE_SUFFIXES = (".pak", ".pk3")
_DRIVE = re.compile(r"^[A-Za-z]:")
_CONTROL = re.compile(r"[\x00-\x1f]")
ZIP_DATE = (1980, 1, 1, 0, 0, 0)


class ArchiveError(FormatError):
    """A bad archive or member: names the archive, the member (if any) and the problem."""

    def __init__(self, archive: str | os.PathLike, message: str, member: str | None = None) -> None:
        self.archive = str(archive)
        self.member = member
        super().__init__(message, filename=f"{archive}:{printable(member)}" if member is not None else str(archive))


@dataclass(frozen=True)
class Member:
    """One entry: ``name`` as stored (``/`` separators in every archive this module writes)."""
    name: str
    size: int


def member_key(name: str) -> str:
    """The name members compare by: ``\\`` as ``/``, lower case (the engines ignore case)."""
    return name.replace("\\", "/").lower()


def unsafe_name(name: str) -> str | None:
    """Why ``name`` is not a plain relative path (absolute, ``..``, a drive letter or any ``:``, an
    empty part, a control character), or None."""
    if not name:
        return "empty name"
    if _CONTROL.search(name):
        return "control character in the name"
    path = name.replace("\\", "/")
    if path.startswith("/"):
        return "absolute name"
    if _DRIVE.match(path):
        return "name with a drive letter"
    if ":" in path:
        return "name with ':' (a drive or stream name on Windows)"
    parts = path.split("/")
    if ".." in parts:
        return "name with '..'"
    if any(part in ("", ".") for part in parts):
        return "name with an empty or '.' part"
    return None


def is_archive_name(path: str | os.PathLike) -> bool:
    """True for ``.pak`` and ``.pk3`` names (any case)."""
    return Path(path).suffix.lower() in ARCHIVE_SUFFIXES


@dataclass(frozen=True)
class _Entry:
    member: Member
    offset: int           # PACK: data offset; PK3: local header offset
    index: int            # position in the directory
    packed: int = 0       # PK3: compressed size
    method: int = 0       # PK3: 0 stored, 8 deflate
    crc: int = 0


class Archive:
    """An open archive. Use as a context manager or call :meth:`close`."""

    def __init__(self, path: Path, kind: str, stream, entries: list[_Entry],
                 problems: list[ArchiveError], notes: list[tuple[str, str]], winners: dict[str, _Entry]) -> None:
        self.path = path
        self.kind = kind
        self.problems = problems
        self.warnings = [message for _, message in notes]
        self._notes = notes
        self._stream = stream
        self._entries = entries
        self._winners = winners
        self._bad = {member_key(p.member): p for p in problems if p.member is not None}

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Archive({str(self.path)!r}, {self.kind!r}, {len(self._entries)} members)"

    def members(self) -> list[Member]:
        """Every readable entry in directory order (duplicates included; see :meth:`find`)."""
        return [e.member for e in self._entries]

    def warnings_for(self, name: str) -> list[str]:
        """The :attr:`warnings` that concern member ``name`` (duplicates, shared bytes)."""
        key = member_key(name)
        return [message for about, message in self._notes if member_key(about) == key]

    def find(self, name: str) -> Member | None:
        """The member the engine would read for ``name`` (any case, ``\\`` or ``/``), or None."""
        entry = self._winners.get(member_key(name))
        return entry.member if entry else None

    def read(self, name: str) -> bytes:
        """One member's bytes; :class:`ArchiveError` when it is absent or broken."""
        key = member_key(name)
        entry = self._winners.get(key)
        if entry is None:
            if key in self._bad:
                raise self._bad[key]
            raise ArchiveError(self.path, "no such member", name)
        if self._stream is None:
            raise ArchiveError(self.path, "the archive is closed", name)
        try:
            if self.kind == "pak":
                return self._read_span(entry.offset, entry.member.size, entry.member.name)
            return self._read_zip(entry)
        except OSError as exc:
            raise ArchiveError(self.path, f"cannot read: {exc}", entry.member.name) from exc

    def close(self) -> None:
        if self._stream is not None:
            self._stream.close()
            self._stream = None

    def _read_span(self, offset: int, size: int, name: str) -> bytes:
        self._stream.seek(offset)
        data = self._stream.read(size)
        if len(data) != size:
            raise ArchiveError(self.path, f"truncated: {size} bytes at offset {offset}, only "
                                          f"{len(data)} there", name)
        return data

    def _read_zip(self, entry: _Entry) -> bytes:
        name = entry.member.name
        header = self._read_span(entry.offset, ZIP_LOCAL_HEADER.size, name)
        fields = ZIP_LOCAL_HEADER.unpack(header)
        if fields[0] != ZIP_LOCAL_MAGIC:
            raise ArchiveError(self.path, f"no local file header at offset {entry.offset}", name)
        start = entry.offset + ZIP_LOCAL_HEADER.size + fields[9] + fields[10]
        packed = self._read_span(start, entry.packed, name)
        size = entry.member.size
        if entry.method == zipfile.ZIP_STORED:
            data = packed
        else:
            inflater = zlib.decompressobj(-15)
            try:
                data = inflater.decompress(packed, size + 1)
            except zlib.error as exc:
                raise ArchiveError(self.path, f"bad deflate data: {exc}", name) from exc
            if len(data) > size:
                raise ArchiveError(self.path, f"inflates past the {size} bytes it declares; stopped there "
                                              f"(a zip bomb?)", name)
        if len(data) != size:
            raise ArchiveError(self.path, f"holds {len(data)} bytes, declares {size}", name)
        if zlib.crc32(data) != entry.crc:
            raise ArchiveError(self.path, "CRC-32 mismatch: the member's bytes are damaged", name)
        return data


def open_archive(path: str | os.PathLike) -> Archive:
    """Open a PACK or zip archive, recognised by its content; :class:`ArchiveError` otherwise."""
    path = Path(path)
    try:
        stream = open(path, "rb")  # noqa: SIM115 - the Archive keeps it open to read members; closed by it
    except OSError as exc:
        raise ArchiveError(path, f"cannot open: {exc.strerror or exc}") from exc
    try:
        magic = stream.read(4)
        if magic == PACK_MAGIC:
            archive = _open_pack(path, stream)
        elif magic in ZIP_MAGICS:
            archive = _open_zip(path, stream)
        else:
            raise ArchiveError(path, f"not a PACK or zip archive (starts with {quoted(magic)})")
    except BaseException:
        stream.close()
        raise
    return archive


def _file_size(stream) -> int:
    return os.fstat(stream.fileno()).st_size


def _pick_winners(path: Path, entries: list[_Entry], first_wins: bool,
                  notes: list[tuple[str, str]]) -> dict[str, _Entry]:
    winners: dict[str, _Entry] = {}
    for entry in entries:
        key = member_key(entry.member.name)
        if key in winners:
            earlier = winners[key]
            keep = earlier if first_wins else entry
            notes.append((entry.member.name, f"{path}: duplicate member {quoted(entry.member.name)} (entries "
                          f"{earlier.index} and {entry.index}); entry {keep.index} is read, as the engine would"))
            winners[key] = keep
        else:
            winners[key] = entry
    return winners


def _open_pack(path: Path, stream) -> Archive:
    total = _file_size(stream)
    stream.seek(0)
    header = stream.read(PACK_HEADER.size)
    if len(header) < PACK_HEADER.size:
        raise ArchiveError(path, f"truncated: the header needs {PACK_HEADER.size} bytes, the file has {total}")
    _, dirofs, dirlen = PACK_HEADER.unpack(header)
    if dirofs < 0 or dirlen < 0:
        raise ArchiveError(path, f"negative directory offset {dirofs} or length {dirlen}")
    if dirlen and dirofs < PACK_HEADER.size:
        raise ArchiveError(path, f"directory ({dirlen} bytes at offset {dirofs}) overlaps the "
                                 f"{PACK_HEADER.size}-byte header")
    if dirlen % PACK_ENTRY.itemsize:
        raise ArchiveError(path, f"directory length {dirlen} is not a multiple of {PACK_ENTRY.itemsize}")
    if dirofs + dirlen > total:
        raise ArchiveError(path, f"directory ({dirlen} bytes at offset {dirofs}) lies outside the file "
                                 f"({total} bytes): truncated?")
    count = dirlen // PACK_ENTRY.itemsize
    if count > MAX_PACK_ENTRIES:
        raise ArchiveError(path, f"{count} directory entries, more than {MAX_PACK_ENTRIES}")
    stream.seek(dirofs)
    raw = stream.read(dirlen)
    if len(raw) != dirlen:
        raise ArchiveError(path, f"truncated directory: {len(raw)} of {dirlen} bytes")
    table = np.frombuffer(raw, dtype=PACK_ENTRY, count=count)
    entries: list[_Entry] = []
    problems: list[ArchiveError] = []
    for index, (_, offset, size) in enumerate(table.tolist()):
        name_bytes = raw[index * 64:index * 64 + PACK_NAME_BYTES]
        name = name_bytes.split(b"\0", 1)[0].decode("latin-1")
        label = name or f"entry {index}"
        problem = None
        if b"\0" not in name_bytes:
            problem = "the 56-byte name has no NUL terminator"
            label = name_bytes.decode("latin-1")
        elif offset < 0 or size < 0:
            problem = f"negative offset {offset} or size {size}"
        elif offset + size > total:
            problem = f"data ({size} bytes at offset {offset}) lies outside the file ({total} bytes)"
        elif size and offset < PACK_HEADER.size:
            problem = f"data ({size} bytes at offset {offset}) overlaps the {PACK_HEADER.size}-byte header"
        elif size and offset < dirofs + dirlen and dirofs < offset + size:
            problem = (f"data ({size} bytes at offset {offset}) overlaps the directory ({dirlen} bytes at "
                       f"offset {dirofs})")
        else:
            problem = unsafe_name(name)
        if problem:
            problems.append(ArchiveError(path, problem, label))
            continue
        entries.append(_Entry(Member(name, int(size)), int(offset), index))
    notes: list[tuple[str, str]] = []
    _warn_overlaps(path, [(e.offset, e.member.size, e.member.name) for e in entries], notes)
    winners = _pick_winners(path, entries, True, notes)
    return Archive(path, "pak", stream, entries, problems, notes, winners)


def _warn_overlaps(path: Path, spans: list[tuple[int, int, str]], notes: list[tuple[str, str]]) -> None:
    """A warning per member whose bytes overlap the member before it in file order."""
    spans = sorted((s for s in spans if s[1] > 0), key=lambda s: (s[0], s[1]))
    reach, owner = -1, ""
    for start, size, name in spans:
        if start < reach:
            notes.append((name, f"{path}: members {quoted(owner)} and {quoted(name)} share bytes at offset {start}"))
        if start + size > reach:
            reach, owner = start + size, name


def _open_zip(path: Path, stream) -> Archive:
    stream.seek(0)
    try:
        infos = zipfile.ZipFile(stream).infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, struct.error, EOFError, OverflowError,
            NotImplementedError, UnicodeError) as exc:
        raise ArchiveError(path, f"bad zip directory: {exc}") from exc
    except OSError as exc:
        raise ArchiveError(path, f"cannot read the zip directory: {exc}") from exc
    total = _file_size(stream)
    entries: list[_Entry] = []
    problems: list[ArchiveError] = []
    for index, info in enumerate(infos):
        if info.is_dir():
            continue
        name = info.filename
        problem = unsafe_name(name)
        if problem is None:
            if info.flag_bits & 0x1:
                problem = "encrypted member (not supported)"
            elif info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                problem = f"compression method {info.compress_type} is not supported (only stored and deflate)"
            elif info.file_size > MAX_MEMBER_SIZE:
                problem = f"declares {info.file_size} bytes, more than the {MAX_MEMBER_SIZE} read at most"
            elif info.compress_type == zipfile.ZIP_STORED and info.compress_size != info.file_size:
                problem = f"stored member with {info.compress_size} packed bytes for {info.file_size}"
            elif info.header_offset + ZIP_LOCAL_HEADER.size + info.compress_size > total:
                problem = f"data ({info.compress_size} bytes at offset {info.header_offset}) lies outside the file"
        if problem:
            problems.append(ArchiveError(path, problem, name or f"entry {index}"))
            continue
        entries.append(_Entry(Member(name, info.file_size), info.header_offset, index,
                              info.compress_size, info.compress_type, info.CRC))
    notes: list[tuple[str, str]] = []
    spans = [(e.offset, ZIP_LOCAL_HEADER.size + len(e.member.name.encode("utf-8")) + e.packed, e.member.name)
             for e in entries]
    overlaps: list[tuple[str, str]] = []
    _warn_overlaps(path, spans, overlaps)
    if overlaps:
        raise ArchiveError(path, "overlapping zip members, refused (the shape of a zip bomb): "
                                 + overlaps[0][1].split(": ", 1)[1])
    winners = _pick_winners(path, entries, False, notes)
    return Archive(path, "pk3", stream, entries, problems, notes, winners)


def _pack_bytes(path: Path, members: list[tuple[str, bytes]]) -> bytes:
    header_size = PACK_HEADER.size
    table = np.zeros(len(members), dtype=PACK_ENTRY)
    offset = header_size
    for index, (name, data) in enumerate(members):
        raw = name.encode("latin-1")
        table[index] = (raw, offset, len(data))
        offset += len(data)
    if offset + table.nbytes > 0x7FFFFFFF:
        raise ArchiveError(path, "more than 2 GB: a PACK cannot hold it (int32 offsets)")
    body = b"".join(data for _, data in members)
    return PACK_HEADER.pack(PACK_MAGIC, offset, table.nbytes) + body + table.tobytes()


def _check_names(path: Path, members: list[tuple[str, bytes]], kind: str) -> None:
    seen: dict[str, str] = {}
    for name, _ in members:
        problem = unsafe_name(name)
        if problem is None and "\\" in name:
            problem = "use '/' as the separator"
        if problem is None and kind == "pak":
            try:
                raw = name.encode("latin-1")
            except UnicodeEncodeError:
                raw = None
                problem = "characters outside Latin-1 do not fit a PACK name"
            if raw is not None and len(raw) >= PACK_NAME_BYTES:
                problem = f"{len(raw)} bytes, a PACK name holds at most {PACK_NAME_BYTES - 1}"
        if problem is None and member_key(name) in seen:
            problem = f"same name as {quoted(seen[member_key(name)])} (names compare without case)"
        if problem:
            raise ArchiveError(path, problem, name)
        seen[member_key(name)] = name


def write_archive(path: str | os.PathLike, members: list[tuple[str, bytes]]) -> None:
    """Write ``members`` (name, bytes) as a PACK (``.pak``) or zip (``.pk3``, deflate) archive.

    Names must be plain relative paths with ``/`` (a PACK name at most 55 bytes of Latin-1), unique
    without case. The file is written beside ``path`` and renamed over it only when complete and read
    back equal, so a failure leaves no partial archive and the old one untouched.
    """
    path = Path(path)
    kind = path.suffix.lower()
    if kind not in ARCHIVE_SUFFIXES:
        raise ArchiveError(path, "the name must end in .pak or .pk3")
    kind = kind[1:]
    _check_names(path, members, kind)
    with replacing(path) as (handle, tmp):
        if kind == "pak":
            handle.write(_pack_bytes(path, members))
        else:
            with zipfile.ZipFile(handle, "w", zipfile.ZIP_DEFLATED) as archive:
                for name, data in members:
                    archive.writestr(_zip_info(name), data)
        handle.flush()
        _verify(tmp, members, path)


def _zip_info(name: str) -> zipfile.ZipInfo:
    """A deflated member with a fixed date (1980-01-01) and mode 0644: the same files give the same archive."""
    info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o100644 << 16
    return info


def _verify(tmp: Path, members: list[tuple[str, bytes]], path: Path) -> None:
    with open_archive(tmp) as archive:
        listed = archive.members()
        if [m.name for m in listed] != [n for n, _ in members] or archive.problems:
            raise ArchiveError(path, "the archive read back lists other members than were written")
        for name, data in members:
            if archive.read(name) != data:
                raise ArchiveError(path, "the member read back differs from what was written", name)
