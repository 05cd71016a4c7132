"""Seeded fuzz cases for the archive reader (``formats.archives.archive``): PACK (``pak``) and zip (``pk3``).

Every case is a :class:`fuzzing.Case` whose ``format`` is ``pak`` or ``pk3``. Seeds are small
archives built with :func:`formats.archives.archive.write_archive` from models of ``tests/support/fuzzing.py`` and a
few other files (plus the corpus mod archive ``pak/quess/pak0.pak`` for PACK), described by a
:class:`fuzzing.Layout` of their header, directory and member fields, so the model fuzzers' own
mutations apply: ``bitflip``, ``overwrite``, ``truncate``, ``inflate`` (offsets and sizes at -1,
2**31-1, one past the file...), ``blocks`` (directory entries and members duplicated, removed or
swapped), and two of their own: ``names`` (a member renamed to an absolute path, ``..``, a drive
letter, a name without NUL, a duplicate) and ``generated`` / ``generated+corrupt`` (random archives,
then one mutation).

:func:`run_archive_case` is the check the tests and ``tools/fuzz_campaign.py`` share: opening may
raise only :class:`ArchiveError`; each listed member reads back exactly its declared size or raises
ArchiveError; what reads back is written again by ``write_archive`` (or refused with ArchiveError)
into an archive that lists and reads the same; all within 2 s and 20x the bytes involved + 1 MB.
"""
from __future__ import annotations

import random
import struct
import tempfile
import time
import zipfile
from collections.abc import Iterator
from functools import cache
from itertools import islice
from pathlib import Path

from formats.archives.archive import ArchiveError, open_archive, write_archive

from . import fuzzing
from .fuzzing import CORPUS, Case, CodecResult, Field, Layout, Seed, describe
from .work_count import WorkExceeded, measure

KINDS = ("pak", "pk3")
GENERATORS = ("bitflip", "overwrite", "truncate", "inflate", "blocks", "names", "generated", "generated+corrupt")
HOSTILE_NAMES = (b"/etc/passwd", b"../../evil.mdl", b"progs/../../x.mdl", b"C:\\x.mdl", b"c:x", b"..\\x",
                 b"", b"a//b", b"./a", b"\x01ctl", b"x" * 56, b"progs/zombie.mdl")
MEMORY_FACTOR, MEMORY_SLACK = 20, 1 << 20
MAX_MEMBERS_READ = 64


def pak_layout(data: bytes) -> Layout:
    out = Layout()
    if len(data) < 12 or data[:4] != b"PACK":
        return out.finish(len(data))
    out.fields += [Field("dirofs", 4, "<i4", "offset"), Field("dirlen", 8, "<i4", "size")]
    dirofs, dirlen = struct.unpack_from("<ii", data, 4)
    if dirofs < 12 or dirlen < 0 or dirofs + dirlen > len(data):
        return out.finish(len(data))
    out.blocks.append(("directory", dirofs, dirofs + dirlen))
    for i in range(dirlen // 64):
        at = dirofs + 64 * i
        pos, size = struct.unpack_from("<ii", data, at + 56)
        out.fields += [Field(f"entry {i} filepos", at + 56, "<i4", "offset"),
                       Field(f"entry {i} filelen", at + 60, "<i4", "size"),
                       Field(f"entry {i} name end", at + 52, "<u4", "type")]
        out.blocks += [(f"entry {i}", at, at + 64), (f"member {i}", pos, pos + size)]
    return out.finish(len(data))


def pk3_layout(data: bytes) -> Layout:
    out = Layout()
    end = data.rfind(b"PK\x05\x06")
    if end < 0 or end + 22 > len(data):
        return out.finish(len(data))
    out.fields += [Field("entries", end + 10, "<u2", "count"), Field("cd size", end + 12, "<u4", "size"),
                   Field("cd offset", end + 16, "<u4", "offset")]
    cd_size, cd_offset = struct.unpack_from("<II", data, end + 12)
    out.blocks.append(("central directory", cd_offset, cd_offset + cd_size))
    pos, i = cd_offset, 0
    while pos + 46 <= end and data[pos:pos + 4] == b"PK\x01\x02":
        packed, name_len, extra, comment = struct.unpack_from("<I4xHHH", data, pos + 20)
        local = struct.unpack_from("<I", data, pos + 42)[0]
        out.fields += [Field(f"cd {i} flags", pos + 8, "<u2", "type"), Field(f"cd {i} method", pos + 10, "<u2", "type"),
                       Field(f"cd {i} crc", pos + 16, "<u4", "type"),
                       Field(f"cd {i} packed size", pos + 20, "<u4", "size"),
                       Field(f"cd {i} size", pos + 24, "<u4", "size"), Field(f"cd {i} name length", pos + 28, "<u2", "size"),
                       Field(f"cd {i} local offset", pos + 42, "<u4", "offset"),
                       Field(f"local {i} name length", local + 26, "<u2", "size"),
                       Field(f"local {i} extra length", local + 28, "<u2", "size")]
        out.blocks += [(f"cd entry {i}", pos, pos + 46 + name_len + extra + comment),
                       (f"member {i}", local, local + 30 + name_len + packed)]
        pos += 46 + name_len + extra + comment
        i += 1
    return out.finish(len(data))


LAYOUTS = {"pak": pak_layout, "pk3": pk3_layout}


def _members(rng: random.Random) -> list[tuple[str, bytes]]:
    """A few models (from the model fuzzers' builders) and other files under game-like names."""
    out, used = [], set()
    for k in range(rng.randint(0, 6)):
        fmt = rng.choice(fuzzing.FORMATS + ("txt",))
        data = (bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 300))) if fmt == "txt"
                else fuzzing.small_valid_files(fmt, 1, rng.randrange(1000))[0])
        name = f"{rng.choice(['progs', 'models/x', 'players/male', 'sound'])}/f{k}.{fmt}"
        if name.lower() not in used:
            used.add(name.lower())
            out.append((name, data))
    return out


def _archive_bytes(kind: str, members: list[tuple[str, bytes]]) -> bytes:
    with tempfile.TemporaryDirectory() as work:
        path = Path(work) / f"a.{kind}"
        write_archive(path, members)
        return path.read_bytes()


@cache
def seeds(kind: str) -> tuple[Seed, ...]:
    rng = random.Random(f"archive seeds/{kind}")
    found = [(f"synthetic{k}", _archive_bytes(kind, _members(rng))) for k in range(4)]
    if kind == "pk3":
        stored = [("a/stored.txt", b"stored " * 20), ("b/empty", b"")]
        found.append(("stored", _zip_with(stored, zipfile.ZIP_STORED)))
    quess = CORPUS / "pak" / "quess" / "pak0.pak"
    if kind == "pak" and quess.is_file():
        found.append(("quess/pak0.pak", quess.read_bytes()))
    return tuple(Seed(name, data, LAYOUTS[kind](data)) for name, data in found)


def _zip_with(members: list[tuple[str, bytes]], method: int) -> bytes:
    import io
    stream = io.BytesIO()
    with zipfile.ZipFile(stream, "w", method) as archive:
        for name, data in members:
            archive.writestr(name, data)
    return stream.getvalue()


def _rename(rng: random.Random, seed: Seed, kind: str) -> tuple[str, bytes]:
    data = bytearray(seed.data)
    name = rng.choice(HOSTILE_NAMES)
    if kind == "pak":
        entries = [f for f in seed.layout.fields if f.name.endswith("name end")]
        if not entries:
            return fuzzing.mutate_overwrite(rng, seed)
        at = rng.choice(entries).offset - 52
        data[at:at + 56] = name.ljust(56, b"\0")[:56] if len(name) < 56 else name[:56]
        return f"name={name!r}", bytes(data)
    lengths = [f for f in seed.layout.fields if f.name.endswith(" name length") and f.name.startswith("cd")]
    if not lengths:
        return fuzzing.mutate_overwrite(rng, seed)
    f = rng.choice(lengths)
    length = struct.unpack_from("<H", data, f.offset)[0]
    start = f.offset - 28 + 46
    fitted = name[:length].ljust(length, b"_")
    data[start:start + length] = fitted
    return f"name={fitted!r}", bytes(data)


def _mutations(kind: str, gen: str, rng: random.Random) -> Iterator[Case]:
    pool = seeds(kind)
    mutate = {"bitflip": fuzzing.mutate_bitflip, "overwrite": fuzzing.mutate_overwrite,
              "truncate": fuzzing.mutate_truncate, "inflate": fuzzing.mutate_inflate,
              "blocks": fuzzing.mutate_blocks, "names": lambda r, s: _rename(r, s, kind)}[gen]
    while True:
        seed = rng.choice(pool)
        detail, data = mutate(rng, seed)
        yield Case(kind, f"{kind}/{gen}/{seed.name}/{detail}", data)


def _generated(kind: str, gen: str, rng: random.Random) -> Iterator[Case]:
    k = 0
    while True:
        members = _members(rng)
        data = _archive_bytes(kind, members) if kind == "pak" or rng.random() < 0.7 else \
            _zip_with(members, zipfile.ZIP_STORED)
        name = f"{kind}/{gen}/archive{k}"
        k += 1
        if gen == "generated":
            yield Case(kind, name, data)
            continue
        seed = Seed(name, data, LAYOUTS[kind](data))
        mutate = rng.choice(fuzzing.CORRUPTIONS + (lambda r, s: _rename(r, s, kind),))
        detail, data = mutate(rng, seed)
        yield Case(kind, f"{name}/{getattr(mutate, '__name__', 'names').removeprefix('mutate_')}/{detail}", data)


def generators(kind: str, seed: int = 0) -> dict[str, Iterator[Case]]:
    if kind not in KINDS:
        raise ValueError(f"unknown archive kind {kind!r}; expected one of {KINDS}")
    return {gen: (_generated if gen.startswith("generated") else _mutations)(
        kind, gen, random.Random(f"{seed}/{kind}/{gen}")) for gen in GENERATORS}


def iter_cases(kind: str, seed: int = 0) -> Iterator[Case]:
    streams = list(generators(kind, seed).values())
    while True:
        for stream in streams:
            yield next(stream)


def cases(kind: str, count: int, seed: int = 0) -> list[Case]:
    return list(islice(iter_cases(kind, seed), count))


def run_archive_case(case: Case, work: Path | None = None) -> CodecResult:
    """Open ``case`` as an archive file, read every member, write the readable ones again.

    Opening and reading every member may make at most :func:`fuzzing.work_budget` calls for the file's size
    and hold ``MEMORY_FACTOR`` times the bytes involved (the file and every member read): counted, never timed."""
    with tempfile.TemporaryDirectory(dir=work) as folder:
        path = Path(folder) / f"case.{case.format}"
        path.write_bytes(case.data)
        budget = fuzzing.work_budget(len(case.data))
        started = time.perf_counter()            # reported by the campaign (slowest case), never judged
        try:
            measured = measure(_open_and_read, path, budget=budget)
        except WorkExceeded:
            return CodecResult("too-much-work", f"opening and reading made more than {budget} calls",
                               time.perf_counter() - started)
        result, readable, involved = measured.result
        result.seconds = time.perf_counter() - started
        if result.outcome not in ("parsed", "refused"):
            return result
        result.peak = measured.peak
        if result.peak > MEMORY_FACTOR * involved + MEMORY_SLACK:
            return CodecResult("memory", f"allocated {result.peak} bytes for {involved}", result.seconds, result.peak)
        if result.outcome != "parsed" or not readable:
            return result
        return _rewrite(result, readable, Path(folder) / f"again.{case.format}")


def _open_and_read(path: Path) -> tuple[CodecResult, list[tuple[str, bytes]], int]:
    """(outcome, the readable members, the bytes involved: the file and every member read)."""
    involved = path.stat().st_size
    try:
        archive = open_archive(path)
    except ArchiveError:
        return CodecResult("refused"), [], involved
    except Exception as exc:  # noqa: BLE001 - anything but ArchiveError is what the fuzzer looks for
        return CodecResult("crash", "open: " + describe(exc)), [], involved
    readable: list[tuple[str, bytes]] = []
    with archive:
        if any(not isinstance(p, ArchiveError) or p.member is None for p in archive.problems):
            return CodecResult("crash", "a problem without its member"), [], involved
        for member in archive.members()[:MAX_MEMBERS_READ]:
            try:
                data = archive.read(member.name)
            except ArchiveError:
                continue
            except Exception as exc:  # noqa: BLE001
                return CodecResult("crash", f"read {member.name!r}: " + describe(exc)), [], involved
            winner = archive.find(member.name)
            if len(data) != winner.size:
                return CodecResult("crash", f"{member.name!r}: read {len(data)} bytes, declares {winner.size}"), [], \
                    involved
            involved += len(data)
            if all(n.lower() != member.name.lower() for n, _ in readable):
                readable.append((member.name, data))
    return CodecResult("parsed"), readable, involved


def _rewrite(result: CodecResult, members: list[tuple[str, bytes]], path: Path) -> CodecResult:
    try:
        write_archive(path, members)
    except ArchiveError:
        return result
    except Exception as exc:  # noqa: BLE001
        return CodecResult("serialize-crash", describe(exc), result.seconds, result.peak)
    try:
        with open_archive(path) as again:
            if [(m.name, again.read(m.name)) for m in again.members()] != members:
                return CodecResult("unreadable-output", "the rewritten archive reads back differently")
    except Exception as exc:  # noqa: BLE001
        return CodecResult("unreadable-output", describe(exc), result.seconds, result.peak)
    return result
