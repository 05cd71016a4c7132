"""Seeded fuzz cases for the MD5 text reader and the MD3 reader (bpy-free), judged as the classic formats'
cases are (:mod:`.fuzzing`): a parser decodes or raises FormatError, nothing else; what decodes is written
again and reads back; through the operator (``tests/fuzz/test_fuzz_md5_md3.py``, ``tools/fuzz_campaign.py
--format md5|md3``) an import finishes or reports an ERROR, leaving nothing in ``bpy.data``.

- MD5: a seed is a mesh with the anim beside it (small corpus meshes and the first anim of their folder,
  or a three-joint pair written here without the corpus); a case mutates the mesh (two in three) or the
  anim as text: ``numbers`` (a number becomes nan, inf, 1e39, -1, 2**31 ...), ``counts`` (the number after
  a count keyword: 0, one more or less, twice, 10**9, -1), ``parents`` (a joint made its own parent,
  parented to a later joint, or two joints parented to each other: the loops that hung the import),
  ``truncate`` (the text cut at a byte or a line), ``tokens`` (a token deleted, doubled, swapped with the
  next, or a brace, parenthesis, quote, keyword, comment or NUL inserted).
- MD3: small corpus files (a generated one without the corpus); ``header`` and ``surface`` (a count or
  offset of the header or of the first surface set to 0, 1, -1, 2**31-1, the file's size, one more than
  it, twice it), ``tags`` (``num_tags`` raised by 1 to 3: the tags then overlap the surfaces),
  ``bitflip`` (1-8 bits), ``overwrite`` (an aligned word set to a boundary value or a float NaN/inf),
  ``truncate``.

The same ``(format, seed)`` gives the same cases in the same order (one stream per generator, mixed
round robin), so a failing name is reproduced by ``cases(format, count, seed)``.
"""
from __future__ import annotations

import random
import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from itertools import islice
from pathlib import Path

from formats.errors import FormatError
from formats.md3.codec import read_md3, write_md3
from formats.md5.anim import read_md5anim
from formats.md5.mesh import read_md5mesh
from formats.md5.write import write_md5anim, write_md5mesh

from .fuzzing import CORPUS, CodecResult, describe, fair_mix

KINDS = ("md5", "md3")
MD5_GENERATORS = ("numbers", "counts", "parents", "truncate", "tokens")
MD3_GENERATORS = ("header", "surface", "tags", "bitflip", "overwrite", "truncate")
MAX_SEED_BYTES = 20_000
_TOKEN = re.compile(rb'"[^"\n]*"|[^\s"]+')
_NUMBER = re.compile(rb"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\Z")
_COUNT = re.compile(rb"\b(numJoints|numMeshes|numverts|numtris|numweights|numFrames|numAnimatedComponents|"
                    rb"frameRate)\s+(-?[0-9.]+)")
_JOINT = re.compile(rb'^([ \t]*"[^"\n]*"[ \t]+)(-?[0-9]+)', re.M)
NUMBERS = (b"nan", b"inf", b"-inf", b"1e39", b"-1e39", b"-1", b"0", b"2147483648", b"99999999999", b"1.5", b"-0")
INSERTS = (b"{", b"}", b"(", b")", b'"', b"mesh", b"joint", b"frame", b"//", b"/*", b"\0", b"vert", b"nan")
MD3_HEADER_INTS = ("num_frames", "num_tags", "num_surfaces", "num_skins", "ofs_frames", "ofs_tags", "ofs_surfaces",
                   "ofs_end")
MD3_HEADER_AT = {name: 76 + 4 * i for i, name in enumerate(MD3_HEADER_INTS)}   # flags at 72, then these
MD3_SURFACE_INTS = ("num_frames", "num_shaders", "num_verts", "num_triangles", "ofs_triangles", "ofs_shaders",
                    "ofs_st", "ofs_xyznormals", "ofs_end")
MD3_SURFACE_AT = {name: 72 + 4 * i for i, name in enumerate(MD3_SURFACE_INTS)}  # ident, name, flags first


@dataclass(frozen=True)
class Case:
    """``data``: the ``.md5mesh`` (MD5) or ``.md3``; ``anim``: the ``.md5anim`` beside the mesh, or None."""
    format: str
    name: str
    data: bytes
    anim: bytes | None = None


# --- seeds ----------------------------------------------------------------------------------------

BUILT_MESH = b"""MD5Version 10
commandline ""
numJoints 3
numMeshes 1
joints {
\t"root" -1 ( 0 0 0 ) ( 0 0 0 )
\t"arm" 0 ( 0 0 2 ) ( 0 0 0 )
\t"hand" 1 ( 0 0 4 ) ( 0 0 0 )
}
mesh {
\tshader "skin"
\tnumverts 4
\tvert 0 ( 0 0 ) 0 1
\tvert 1 ( 1 0 ) 1 2
\tvert 2 ( 0 1 ) 3 1
\tvert 3 ( 1 1 ) 3 1
\tnumtris 2
\ttri 0 0 1 2
\ttri 1 1 3 2
\tnumweights 4
\tweight 0 0 1 ( 1 0 0 )
\tweight 1 1 0.5 ( 1 0 0 )
\tweight 2 2 0.5 ( 1 0 0 )
\tweight 3 2 1 ( 0 1 0 )
}
"""
BUILT_ANIM = b"""MD5Version 10
commandline ""
numFrames 2
numJoints 3
frameRate 24
numAnimatedComponents 7
hierarchy {
\t"root" -1 0 0
\t"arm" 0 56 0
\t"hand" 1 1 6
}
bounds {
\t( -1 -1 -1 ) ( 1 1 1 )
\t( -1 -1 -1 ) ( 1 1 1 )
}
baseframe {
\t( 0 0 0 ) ( 0 0 0 )
\t( 0 0 2 ) ( 0 0 0 )
\t( 0 0 2 ) ( 0 0 0 )
}
frame 0 {
\t0 0 0 0.5 0 0 0
}
frame 1 {
\t0 0 0.7071 0.7071 0 0 0.5
}
"""


@cache
def md5_seeds() -> tuple[tuple[str, bytes, bytes | None], ...]:
    """(name, mesh, anim) of each small corpus mesh and the first anim of its folder; the built pair always."""
    found = [("built/arm.md5mesh", BUILT_MESH, BUILT_ANIM)]
    for mesh in sorted(CORPUS.glob("md5/**/*.md5mesh")) if CORPUS.is_dir() else []:
        if mesh.stat().st_size > MAX_SEED_BYTES:
            continue
        anims = sorted(a for a in mesh.parent.glob("*.md5anim") if a.stat().st_size <= MAX_SEED_BYTES)
        found.append((f"{mesh.parent.name}/{mesh.name}", mesh.read_bytes(), anims[0].read_bytes() if anims else None))
    return tuple(found)


@cache
def md3_seeds() -> tuple[tuple[str, bytes], ...]:
    files = [f for f in sorted(CORPUS.glob("md3/**/*.md3")) if f.stat().st_size <= MAX_SEED_BYTES] \
        if CORPUS.is_dir() else []
    found = [(f"{f.parent.name}/{f.name}", f.read_bytes()) for f in files[:12]]
    return tuple(found) or (("built/quad.md3", _built_md3()),)


def _built_md3() -> bytes:
    frame = struct.pack("<10f16s", -1, -1, -1, 1, 1, 1, 0, 0, 0, 2, b"idle")
    tag = struct.pack("<64s12f", b"tag_head", 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1)
    shader = struct.pack("<64si", b"models/x/skin.tga", 0)
    tris = struct.pack("<6i", 0, 1, 2, 0, 2, 3)
    st = struct.pack("<8f", 0, 0, 1, 0, 1, 1, 0, 1)
    xyz = b"".join(struct.pack("<3hH", 64 * (v & 1), 64 * (v >> 1), 0, 0) for v in range(4))
    o_tri, o_st = 108 + len(shader), 108 + len(shader) + len(tris)
    surface = struct.pack("<4s64s10i", b"IDP3", b"body", 0, 1, 1, 4, 2, o_tri, 108, o_st, o_st + len(st),
                          o_st + len(st) + len(xyz)) + shader + tris + st + xyz
    ofs_tags, ofs_surfaces = 108 + len(frame), 108 + len(frame) + len(tag)
    header = struct.pack("<4si64si4i4i", b"IDP3", 15, b"quad", 0, 1, 1, 1, 0, 108, ofs_tags, ofs_surfaces,
                         ofs_surfaces + len(surface))
    return header + frame + tag + surface


# --- MD5 text mutations: each (rng, text) -> (detail, text) ------------------------------------------

def _tokens(text: bytes) -> list[re.Match]:
    return list(_TOKEN.finditer(text))


def _replace(text: bytes, start: int, end: int, new: bytes) -> bytes:
    return text[:start] + new + text[end:]


def md5_numbers(rng: random.Random, text: bytes) -> tuple[str, bytes]:
    numbers = [m for m in _tokens(text) if _NUMBER.match(m.group())]
    if not numbers:
        return "no number", text
    token, value = rng.choice(numbers), rng.choice(NUMBERS)
    return f"{token.group().decode()}@{token.start()}={value.decode()}", _replace(text, *token.span(), value)


def md5_counts(rng: random.Random, text: bytes) -> tuple[str, bytes]:
    counts = list(_COUNT.finditer(text))
    if not counts:
        return "no count", text
    count = rng.choice(counts)
    n = int(float(count.group(2)))
    value = rng.choice([0, 1, n - 1, n + 1, 2 * n, 10 ** 9, -1])
    return f"{count.group(1).decode()}={value}", _replace(text, *count.span(2), str(value).encode())


def md5_parents(rng: random.Random, text: bytes) -> tuple[str, bytes]:
    joints = list(_JOINT.finditer(text))
    if not joints:
        return "no joint", text
    a = rng.randrange(len(joints))
    b = rng.randrange(len(joints))
    how = rng.choice(["self", "later", "pair", "any"])
    changes = {"self": {a: a}, "later": {a: min(a + 1 + rng.randrange(3), len(joints))}, "pair": {a: b, b: a},
               "any": {a: rng.randrange(-2, len(joints) + 1)}}[how]
    for row in sorted(changes, reverse=True):         # from the end, so earlier spans stay where they are
        text = _replace(text, *joints[row].span(2), str(changes[row]).encode())
    return f"{how} " + ",".join(f"{row}->{p}" for row, p in sorted(changes.items())), text


def md5_truncate(rng: random.Random, text: bytes) -> tuple[str, bytes]:
    if rng.random() < 0.5:
        lines = [m.end() for m in re.finditer(rb"\n", text)]
        at = rng.choice(lines) if lines else len(text) // 2
    else:
        at = rng.randrange(len(text) + 1)
    return f"cut at {at}", text[:at]


def md5_tokens(rng: random.Random, text: bytes) -> tuple[str, bytes]:
    tokens = _tokens(text)
    if len(tokens) < 2:
        return "too few tokens", text
    i = rng.randrange(len(tokens) - 1)
    token, after = tokens[i], tokens[i + 1]
    how = rng.choice(["delete", "double", "swap", "insert"])
    if how == "delete":
        return f"delete {i}", _replace(text, *token.span(), b"")
    if how == "double":
        return f"double {i}", _replace(text, *token.span(), token.group() + b" " + token.group())
    if how == "swap":
        return f"swap {i}", text[:token.start()] + after.group() + text[token.end():after.start()] + token.group() \
            + text[after.end():]
    value = rng.choice(INSERTS)
    return f"insert {value!r} at {i}", _replace(text, token.start(), token.start(), value + b" ")


MD5_MUTATIONS = {"numbers": md5_numbers, "counts": md5_counts, "parents": md5_parents, "truncate": md5_truncate,
                 "tokens": md5_tokens}


def _md5_stream(gen: str, rng: random.Random) -> Iterator[Case]:
    seeds = md5_seeds()
    while True:
        name, mesh, anim = rng.choice(seeds)
        on_anim = anim is not None and rng.random() < 1 / 3
        detail, changed = MD5_MUTATIONS[gen](rng, anim if on_anim else mesh)
        if on_anim:
            yield Case("md5", f"md5/{gen}/{name}/anim/{detail}", mesh, changed)
        else:
            yield Case("md5", f"md5/{gen}/{name}/mesh/{detail}", changed, anim)


# --- MD3 binary mutations ---------------------------------------------------------------------------

def _int_values(rng: random.Random, current: int, size: int) -> int:
    return rng.choice([0, 1, -1, 0x7FFFFFFF, -0x80000000, size, size + 1, 2 * size, current + 1, current - 1,
                       current + 108, current * 2])


def _put_int(data: bytes, at: int, value: int) -> bytes:
    if at + 4 > len(data):
        return data
    return data[:at] + struct.pack("<i", value) + data[at + 4:]


def _int_at(data: bytes, at: int) -> int:
    return struct.unpack_from("<i", data, at)[0] if at + 4 <= len(data) else 0


def md3_header(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    name = rng.choice(MD3_HEADER_INTS)
    at = MD3_HEADER_AT[name]
    value = _int_values(rng, _int_at(data, at), len(data))
    return f"{name}={value}", _put_int(data, at, value)


def md3_surface(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    start = _int_at(data, MD3_HEADER_AT["ofs_surfaces"])
    name = rng.choice(MD3_SURFACE_INTS)
    at = start + MD3_SURFACE_AT[name]
    if not 0 <= at <= len(data) - 4:
        return "no surface", data
    value = _int_values(rng, _int_at(data, at), len(data))
    return f"surface 0 {name}={value}", _put_int(data, at, value)


def md3_tags(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    at = MD3_HEADER_AT["num_tags"]
    value = _int_at(data, at) + rng.randint(1, 3)
    return f"num_tags={value}", _put_int(data, at, value)


def md3_bitflip(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    out = bytearray(data)
    flips = [rng.randrange(len(out) * 8) for _ in range(rng.randint(1, 8))]
    for bit in flips:
        out[bit // 8] ^= 1 << (bit % 8)
    return "bits " + ",".join(map(str, flips)), bytes(out)


def md3_overwrite(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    at = rng.randrange(0, max(len(data) - 3, 1), 4)
    raw = rng.choice([struct.pack("<f", v) for v in (float("nan"), float("inf"), -3.4e38)]
                     + [struct.pack("<I", v) for v in (0, 0xFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x10000)])
    return f"{raw.hex()}@{at}", data[:at] + raw + data[at + 4:]


def md3_truncate(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    at = rng.randrange(len(data) + 1)
    return f"cut at {at}", data[:at]


MD3_MUTATIONS = {"header": md3_header, "surface": md3_surface, "tags": md3_tags, "bitflip": md3_bitflip,
                 "overwrite": md3_overwrite, "truncate": md3_truncate}


def _md3_stream(gen: str, rng: random.Random) -> Iterator[Case]:
    seeds = md3_seeds()
    while True:
        name, data = rng.choice(seeds)
        detail, changed = MD3_MUTATIONS[gen](rng, data)
        yield Case("md3", f"md3/{gen}/{name}/{detail}", changed)


# --- streams and checks ------------------------------------------------------------------------------

def generators(fmt: str, seed: int = 0) -> dict[str, Iterator[Case]]:
    """One endless, deterministic stream per generator of ``fmt`` (md5 or md3)."""
    if fmt not in KINDS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {KINDS}")
    names, stream = (MD5_GENERATORS, _md5_stream) if fmt == "md5" else (MD3_GENERATORS, _md3_stream)
    return {gen: stream(gen, random.Random(f"{seed}/{fmt}/{gen}")) for gen in names}


def iter_cases(fmt: str, seed: int = 0) -> Iterator[Case]:
    """An endless fair mix: one case from each generator of ``fmt`` in turn."""
    return fair_mix(list(generators(fmt, seed).values()))


def cases(fmt: str, count: int, seed: int = 0) -> list[Case]:
    return list(islice(iter_cases(fmt, seed), count))


def write_case(case: Case, folder: Path, stem: str) -> Path:
    """The case's files in ``folder`` (an MD5 mesh with its anim beside it, same stem); the file to import."""
    if case.format == "md3":
        path = folder / f"{stem}.md3"
        path.write_bytes(case.data)
        return path
    path = folder / f"{stem}.md5mesh"
    path.write_bytes(case.data)
    if case.anim is not None:
        path.with_suffix(".md5anim").write_bytes(case.anim)
    return path


def remove_case(path: Path) -> None:
    for suffix in (".md3", ".md5mesh", ".md5anim"):
        path.with_suffix(suffix).unlink(missing_ok=True)


def _round_trip(read, write, data: bytes):
    """``None`` when ``data`` is refused, else the model once its written form has read back."""
    try:
        model = read(data)
    except FormatError:
        return None
    try:
        written = write(model)
    except FormatError:
        return model
    read(written)              # what the writer writes must read
    return model


def run_codec_case(case: Case) -> CodecResult:
    """Read the case (MD5: the mesh, then the anim), write what reads and read that again: anything but
    FormatError from a reader, or a written file its reader refuses, is a ``crash``."""
    try:
        if case.format == "md3":
            model = _round_trip(read_md3, write_md3, case.data)
        else:
            model = _round_trip(read_md5mesh, write_md5mesh, case.data)
            if case.anim is not None:
                _round_trip(read_md5anim, write_md5anim, case.anim)
    except Exception as exc:  # noqa: BLE001 - anything but FormatError is what the fuzzer looks for
        return CodecResult("crash", describe(exc))
    return CodecResult("refused" if model is None else "parsed")
