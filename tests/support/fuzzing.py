"""Seeded fuzz cases for the MD2, MDL and MS3D parsers (bpy-free).

Every case is a :class:`Case` ``(format, name, data)``: bytes a parser must either decode or refuse
with :class:`formats.errors.FormatError`. The name says how the bytes were made, e.g.
``md2/inflate/assimp/faerie.md2/num_frames=2147483647``; the same ``(format, seed)`` always gives the
same cases in the same order, so a failing name is reproduced by ``cases(format, count, seed)``.

Two families of generators, mixed fairly (round robin) by :func:`iter_cases`:

* mutations of seed files — the corpus (``../shared/corpus/<format>``) or, when it is absent, a few
  generated models: ``bitflip`` (1-8 bits, half of them inside header and count fields),
  ``overwrite`` (boundary values 0, 0xFF, 0x7FFFFFFF, 0x80000000... at aligned positions and at
  every typed field, NaN and infinities in float fields), ``truncate`` (every block boundary of every
  seed once, in a seeded order, then cuts next to boundaries), ``inflate`` (each count and size
  field set to -1, 0, 2**31-1, 65535, one more than the file can hold...), ``blocks`` (a block
  duplicated, removed or swapped with its neighbour) and ``offsets`` (MD2: ``ofs_*`` fields swapped
  or pointing into other blocks; MDL: skin and frame type fields retyped, or the ident and version
  rewritten to another flavour (IDPO, MD16, RAPO); MS3D: version and
  optional-block subversions rewritten, optional blocks repeated, dropped or moved to the end);
* structure-aware generators that build random but valid-ish models through the codecs' own
  dataclasses (random sizes, groups or none, optional blocks; MDL in all three flavours, and the
  MDL seeds always include generated MD16 and RAPO files, the corpus having none) and serialize them: ``generated``
  yields them as they are, ``generated+corrupt`` after one of the mutations above.

Block boundaries and typed fields come from :func:`layout`, which walks a file the codec accepts
(MD2 needs only its header). :func:`pcx_cases` mutates the PCX skins the MD2 import decodes.

The checks live here too, so the tests and ``tools/fuzz_campaign.py`` judge cases alike:
:func:`run_codec_case` (no Blender) and :func:`import_outcome` (``tests/support/fuzzing_blender.py``, given ``bpy``;
neither imports it). Layouts are in ``tests/support/fuzzing_layouts.py``, the random models in
``tests/support/fuzzing_models.py``.
"""
from __future__ import annotations

import random
import struct
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from itertools import islice
from pathlib import Path

import numpy as np

CHECKOUT = Path(__file__).resolve().parents[2]
if str(CHECKOUT) not in sys.path:
    sys.path.insert(0, str(CHECKOUT))

from formats.errors import FormatError  # noqa: E402
from formats.images import pcx  # noqa: E402
from formats.md2 import codec as md2  # noqa: E402
from formats.mdl import codec as mdl  # noqa: E402
from formats.ms3d import codec as ms3d  # noqa: E402

from .fuzzing_layouts import Field, Layout, layout  # noqa: E402,F401
from .fuzzing_models import SERIALIZERS, serialized_model  # noqa: E402

CORPUS = CHECKOUT.parent / "shared" / "corpus"
FORMATS = ("md2", "mdl", "ms3d")
PARSERS: dict[str, Callable[[bytes], object]] = {
    "md2": md2.parse_md2, "mdl": mdl.parse_mdl, "ms3d": ms3d.parse_ms3d}
INT32_BOUNDARY = (0, 0xFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 1, 0xFFFF, 0x10000)
UINT16_BOUNDARY = (0, 1, 0x7FFF, 0x8000, 0xFFFF)
UINT8_BOUNDARY = (0, 1, 0x7F, 0x80, 0xFF)
FLOAT_SPECIAL = (float("nan"), float("inf"), float("-inf"), 3.4e38, -3.4e38, 1e-45, -0.0, 0.0)


@dataclass(frozen=True)
class Case:
    """One fuzz input: ``format`` is md2, mdl or ms3d; ``name`` says how ``data`` was made."""
    format: str
    name: str
    data: bytes


@dataclass(frozen=True)
class Seed:
    name: str
    data: bytes
    layout: Layout

# ---------------------------------------------------------------------------------------------
# seeds

@cache
def seeds(fmt: str) -> tuple[Seed, ...]:
    """The corpus files of ``fmt`` with their layouts; generated models when the corpus is absent."""
    files = sorted(CORPUS.glob(f"{fmt}/*/*.{fmt}")) if CORPUS.is_dir() else []
    found = [(f"{f.parent.name}/{f.name}", f.read_bytes()) for f in files]
    if not found:
        rng = random.Random(f"synthetic seeds/{fmt}")
        found = [(f"synthetic{k}", serialized_model(fmt, rng)) for k in range(4)]
        if fmt == "md2":
            from .md2_synthetic import grid_model
            found.append(("synthetic-grid", md2.serialize_md2(grid_model())))
    if fmt == "mdl":           # the corpus holds IDPO only: MD16 and RAPO seeds are always generated
        for variant in ("MD16", "RAPO"):
            rng = random.Random(f"synthetic seeds/mdl/{variant}")
            found += [(f"synthetic-{variant.lower()}{k}", serialized_model(fmt, rng, variant=variant))
                      for k in range(2)]
    return tuple(Seed(name, data, layout(fmt, data)) for name, data in found)


# ---------------------------------------------------------------------------------------------
# mutations: each takes (rng, seed) and returns (detail, bytes)

def _pack(kind: str, value) -> bytes:
    if kind == "<f4":
        return struct.pack("<f", value)
    dtype = np.dtype(kind)
    bits = 8 * dtype.itemsize
    return (int(value) & ((1 << bits) - 1)).to_bytes(dtype.itemsize, "little")


def _read(data: bytes, f: Field):
    return np.frombuffer(data, f.kind, count=1, offset=f.offset)[0].item()


def _patched(data: bytes, offset: int, raw: bytes) -> bytes:
    out = bytearray(data)
    out[offset:offset + len(raw)] = raw
    return bytes(out)


def with_field(data: bytes, f: Field, value) -> bytes:
    """``data`` with field ``f`` set to ``value`` (integers wrap to the field's width)."""
    return _patched(data, f.offset, _pack(f.kind, value))


def _near_field(rng: random.Random, seed: Seed) -> int:
    if seed.layout.fields and rng.random() < 0.7:
        f = rng.choice(seed.layout.fields)
        return f.offset + rng.randrange(np.dtype(f.kind).itemsize)
    return rng.randrange(min(len(seed.data), 256))


def mutate_bitflip(rng: random.Random, seed: Seed) -> tuple[str, bytes]:
    data = bytearray(seed.data)
    flips = []
    for _ in range(rng.randint(1, 8)):
        pos = _near_field(rng, seed) if rng.random() < 0.5 else rng.randrange(len(data))
        bit = rng.randrange(8)
        data[pos] ^= 1 << bit
        flips.append(f"{pos}.{bit}")
    return "bits@" + ",".join(flips), bytes(data)


def mutate_overwrite(rng: random.Random, seed: Seed) -> tuple[str, bytes]:
    data = seed.data
    if seed.layout.fields and rng.random() < 0.6:
        f = rng.choice(seed.layout.fields)
        pool = {"<f4": FLOAT_SPECIAL, "<u2": UINT16_BOUNDARY, "u1": UINT8_BOUNDARY,
                "i1": UINT8_BOUNDARY}.get(f.kind, INT32_BOUNDARY)
        value = rng.choice(pool)
        return f"{f.name}={value!r}", with_field(data, f, value)
    pos = rng.randrange(0, max(len(data) - 3, 1)) & ~3
    if rng.random() < 0.3:
        value = rng.choice(FLOAT_SPECIAL)
        return f"f32@{pos}={value!r}", _patched(data, pos, struct.pack("<f", value))[:len(data)]
    value = rng.choice(INT32_BOUNDARY)
    return f"i32@{pos}=0x{value:X}", _patched(data, pos, _pack("<i4", value))[:len(data)]


def _inflated_values(f: Field, current: int, size: int) -> list[int]:
    if f.kind == "<u2":
        return [0, 1, 0x7FFF, 0xFFFF, (current + 1) & 0xFFFF, max(current - 1, 0), current * 2 & 0xFFFF]
    if f.kind in ("u1", "i1"):
        return [0, 0x7F, 0x80, 0xFF, (current + 1) & 0xFF]
    return [-1, -2**31, 2**31 - 1, 2**30, 0x10000, 0xFFFF, 0, current + 1, current - 1,
            2 * current + 1, size, size + 1, (size // 4) + 1]


def mutate_inflate(rng: random.Random, seed: Seed) -> tuple[str, bytes]:
    fields = [f for f in seed.layout.fields if f.role in ("count", "size", "offset")]
    if not fields:
        return mutate_overwrite(rng, seed)
    f = rng.choice(fields)
    value = rng.choice(_inflated_values(f, int(_read(seed.data, f)), len(seed.data)))
    return f"{f.name}={value}", with_field(seed.data, f, value)


class _Truncations:
    """Every block boundary of every seed once (seeded order), then cuts next to boundaries."""

    def __init__(self, rng: random.Random, pool: tuple[Seed, ...]) -> None:
        self.pool = pool
        self.todo = [(i, b) for i, s in enumerate(pool) for b in s.layout.boundaries if b < len(s.data)]
        rng.shuffle(self.todo)

    def __call__(self, rng: random.Random, seed: Seed) -> tuple[str, bytes, Seed]:
        if self.todo:
            i, cut = self.todo.pop()
            seed = self.pool[i]
            return f"cut@{cut}", seed.data[:cut], seed
        if seed.layout.boundaries and rng.random() < 0.7:
            cut = rng.choice(seed.layout.boundaries) + rng.choice([-4, -2, -1, 1, 2, 3])
        else:
            cut = rng.randrange(len(seed.data))
        cut = min(max(cut, 0), max(len(seed.data) - 1, 0))
        return f"cut@{cut}", seed.data[:cut], seed


def mutate_truncate(rng: random.Random, seed: Seed) -> tuple[str, bytes]:
    cut = rng.choice([b for b in seed.layout.boundaries if b < len(seed.data)] or [0])
    return f"cut@{cut}", seed.data[:cut]


def mutate_blocks(rng: random.Random, seed: Seed) -> tuple[str, bytes]:
    blocks = seed.layout.blocks
    if not blocks:
        return mutate_truncate(rng, seed)
    data = seed.data
    k = rng.randrange(len(blocks))
    name, start, end = blocks[k]
    op = rng.choice(["duplicate", "remove", "swap"])
    if op == "duplicate":
        return f"duplicate {name}", data[:end] + data[start:end] + data[end:]
    if op == "remove":
        return f"remove {name}", data[:start] + data[end:]
    following = [b for b in blocks if b[1] >= end]
    if not following:
        return f"remove {name}", data[:start] + data[end:]
    other, o_start, o_end = following[0]
    return (f"swap {name} {other}",
            data[:start] + data[o_start:o_end] + data[end:o_start] + data[start:end] + data[o_end:])


def _md2_offsets(rng: random.Random, seed: Seed) -> tuple[str, bytes]:
    data = seed.data
    if len(data) < md2.HEADER.itemsize or data[:4] != md2.IDENT:
        return mutate_overwrite(rng, seed)
    names = ["ofs_skins", "ofs_st", "ofs_tris", "ofs_frames", "ofs_glcmds", "ofs_end"]
    at = {n: md2.HEADER.fields[n][1] for n in names}
    value = {n: struct.unpack_from("<i", data, at[n])[0] for n in names}
    op = rng.random()
    if op < 0.4:
        a, b = rng.sample(names, 2)
        out = _patched(_patched(data, at[a], struct.pack("<i", value[b])), at[b], struct.pack("<i", value[a]))
        return f"swap {a} {b}", out
    a = rng.choice(names[:-1])
    starts = [s for _, s, _ in seed.layout.blocks] or [md2.HEADER.itemsize]
    ends = [e for _, _, e in seed.layout.blocks] or [len(data)]
    target = rng.choice([
        rng.choice(starts), rng.choice(starts) + rng.choice([1, 2, 4, 40]),
        (rng.choice(starts) + rng.choice(ends)) // 2, 0, 4, md2.HEADER.itemsize - 4, len(data), len(data) - 1,
        value["ofs_end"], -1, -md2.HEADER.itemsize])
    return f"{a}={target}", _patched(data, at[a], struct.pack("<i", target))


def _retype(rng: random.Random, seed: Seed) -> tuple[str, bytes]:
    fields = [f for f in seed.layout.fields if f.role == "type"]
    if not fields:
        return mutate_overwrite(rng, seed)
    f = rng.choice(fields)
    current = int(_read(seed.data, f))
    value = rng.choice([0, 1, 2, 3, -1, current ^ 1, 2**31 - 1, 5, 4])
    return f"{f.name}={value}", with_field(seed.data, f, value)


def _ms3d_blocks_offsets(rng: random.Random, seed: Seed) -> tuple[str, bytes]:
    optional = [b for b in seed.layout.blocks
                if b[0] in ("comments", "vertex extras", "joint extras", "model extras")]
    if optional and rng.random() < 0.4:
        name, start, end = rng.choice(optional)
        op = rng.choice(["repeat", "drop", "move to end"])
        data = seed.data
        if op == "repeat":
            return f"repeat {name}", data[:end] + data[start:end] + data[end:]
        if op == "drop":
            return f"drop {name}", data[:start] + data[end:]
        return f"move {name} to end", data[:start] + data[end:] + data[start:end]
    return _retype(rng, seed)


def _mdl_flavour(rng: random.Random, seed: Seed) -> tuple[str, bytes]:
    """MDL: the ident and version of another flavour (or only one of them), else a type field retyped."""
    if rng.random() < 0.35:
        ident = rng.choice([b"IDPO", b"MD16", b"RAPO"])
        version = rng.choice([6, 50, struct.unpack_from("<i", seed.data, 4)[0] if len(seed.data) >= 8 else 6])
        return f"ident={ident.decode()},version={version}", ident + struct.pack("<i", version) + seed.data[8:]
    return _retype(rng, seed)


OFFSET_MUTATIONS = {"md2": _md2_offsets, "mdl": _mdl_flavour, "ms3d": _ms3d_blocks_offsets}
CORRUPTIONS = (mutate_bitflip, mutate_overwrite, mutate_truncate, mutate_inflate, mutate_blocks)

GENERATORS = ("bitflip", "overwrite", "truncate", "inflate", "blocks", "offsets", "generated", "generated+corrupt")


def _seed_mutations(fmt: str, gen: str, rng: random.Random) -> Iterator[Case]:
    pool = seeds(fmt)
    mutate = {"bitflip": mutate_bitflip, "overwrite": mutate_overwrite, "inflate": mutate_inflate,
              "blocks": mutate_blocks, "offsets": OFFSET_MUTATIONS[fmt]}.get(gen)
    truncations = _Truncations(rng, pool) if gen == "truncate" else None
    while True:
        seed = rng.choice(pool)
        if truncations is not None:
            detail, data, seed = truncations(rng, seed)
        else:
            detail, data = mutate(rng, seed)
        yield Case(fmt, f"{fmt}/{gen}/{seed.name}/{detail}", data)


def _generated(fmt: str, gen: str, rng: random.Random) -> Iterator[Case]:
    corrupt = gen == "generated+corrupt"
    k = 0
    while True:
        data = serialized_model(fmt, rng)
        name = f"{fmt}/{gen}/model{k}"
        k += 1
        if not corrupt:
            yield Case(fmt, name, data)
            continue
        seed = Seed(name, data, layout(fmt, data))
        mutate = rng.choice(CORRUPTIONS + (OFFSET_MUTATIONS[fmt],))
        detail, data = mutate(rng, seed)
        yield Case(fmt, f"{name}/{mutate.__name__.removeprefix('mutate_').lstrip('_')}/{detail}", data)


def generators(fmt: str, seed: int = 0) -> dict[str, Iterator[Case]]:
    """One lazy, endless, deterministic case stream per generator name (see :data:`GENERATORS`)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {FORMATS}")
    out = {}
    for gen in GENERATORS:
        rng = random.Random(f"{seed}/{fmt}/{gen}")
        out[gen] = (_generated if gen.startswith("generated") else _seed_mutations)(fmt, gen, rng)
    return out


def fair_mix(streams: list[Iterator]) -> Iterator:
    """An endless fair mix of endless ``streams``: one item from each in turn."""
    while True:
        for stream in streams:
            yield next(stream)


def iter_cases(fmt: str, seed: int = 0) -> Iterator[Case]:
    """An endless fair mix: one case from each generator in turn."""
    return fair_mix(list(generators(fmt, seed).values()))


def cases(fmt: str, count: int, seed: int = 0) -> list[Case]:
    """The first ``count`` cases of the fair mix for ``fmt``."""
    return list(islice(iter_cases(fmt, seed), count))


# ---------------------------------------------------------------------------------------------
# PCX skins (reached by the MD2 import whenever a skin is found next to the model)

IMAGE_SUFFIXES = (".pcx", ".tga", ".png", ".jpg", ".jpeg", ".bmp")
_PCX_FIELDS = [Field(name, pcx.HEADER.fields[name][1], pcx.HEADER.fields[name][0].str, "size")
               for name in ("xmin", "ymin", "xmax", "ymax", "bytes_per_line")] + \
              [Field(name, pcx.HEADER.fields[name][1], "u1", "type")
               for name in ("manufacturer", "version", "encoding", "bits_per_pixel", "planes")]


def skin_files(fmt: str) -> list[Path]:
    """The corpus images stored next to the ``fmt`` models (empty without the corpus)."""
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.glob(f"{fmt}/*/*") if p.suffix.lower() in IMAGE_SUFFIXES)


@cache
def pcx_seeds() -> tuple[Seed, ...]:
    rng = np.random.default_rng(3)
    found = [(f"{p.parent.name}/{p.name}", p.read_bytes())
             for p in skin_files("md2") if p.suffix.lower() == ".pcx"]
    found.append(("synthetic", pcx.encode_pcx(rng.integers(0, 4, (17, 9)).astype(np.uint8),
                                              rng.integers(0, 256, (256, 3)).astype(np.uint8))))
    out = []
    for name, data in found:
        ends = [128, len(data) - 769, len(data) - 768, len(data) - 1]
        out.append(Seed(name, data, Layout(boundaries=ends, fields=list(_PCX_FIELDS)).finish(len(data))))
    return tuple(out)


def pcx_cases(count: int, seed: int = 0) -> Iterator[Case]:
    """``count`` mutated PCX files: bit flips, header fields at boundary values, truncations."""
    rng = random.Random(f"{seed}/pcx")
    pool = pcx_seeds()
    mutations = (mutate_bitflip, mutate_overwrite, mutate_inflate, mutate_truncate)
    for k in range(count):
        seed_file = rng.choice(pool)
        mutate = mutations[k % len(mutations)]
        detail, data = mutate(rng, seed_file)
        yield Case("pcx", f"pcx/{mutate.__name__.removeprefix('mutate_')}/{seed_file.name}/{detail}", data)


def small_valid_files(fmt: str, count: int, seed: int = 0) -> list[bytes]:
    """``count`` small files the codec accepts, with ordinary values: random models built with
    ``tame`` numbers (MD2 alternates them with waving grids)."""
    rng = random.Random(f"{seed}/{fmt}/small valid files")
    out = []
    for i in range(count):
        if fmt == "md2" and i % 2 == 0:
            from .md2_synthetic import grid_model
            out.append(md2.serialize_md2(grid_model(nx=3 + i % 3, ny=2 + i % 4, frames=1 + i % 6, seed=i)))
        else:
            out.append(serialized_model(fmt, rng, tame=True))
    return out


def hex_snippet(data: bytes, around: int | None = None, width: int = 32) -> str:
    """A short hex view of ``data`` (the start, or ``width`` bytes around offset ``around``)."""
    start = 0 if around is None else max(around - width // 2, 0)
    chunk = data[start:start + width]
    return f"{len(data)} bytes, [{start}:{start + len(chunk)}] {chunk.hex(' ')}"


# ---------------------------------------------------------------------------------------------
# codec-level check

WORK_PER_BYTE, WORK_SLACK = 0.25, 50_000      # a parse may make at most len / 4 + 50000 calls (about ten times
                                               # what any seed or mutation needs: see work_count)
MEMORY_FACTOR, MEMORY_SLACK = 20, 1 << 20      # a parse may allocate at most 20x the file + 1 MB
CODEC_FAILURES = ("crash", "serialize-crash", "unreadable-output", "non-finite-positions", "too-much-work", "memory")


def work_budget(size: int) -> int:
    """The most Python and C calls a parse of ``size`` bytes may make: linear in the size, counted, not timed."""
    return int(WORK_PER_BYTE * size) + WORK_SLACK


@dataclass
class CodecResult:
    """``outcome`` is ``parsed`` or ``refused`` (FormatError), or one of :data:`CODEC_FAILURES`."""
    outcome: str
    detail: str = ""
    seconds: float = 0.0
    peak: int = 0


def describe(exc: BaseException) -> str:
    """``Type: message (at file.py:line function)`` for the innermost frame of ``exc``."""
    import traceback
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno} {frames[-1].name})" if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"


def run_codec_case(case: Case) -> CodecResult:
    """Parse ``case`` under ``tracemalloc``; serialize and parse again whatever parsed.

    A parse may raise only FormatError, make at most :func:`work_budget` calls (a loop that runs away is
    stopped there) and allocate at most ``MEMORY_FACTOR * size + MEMORY_SLACK`` bytes at its peak; a parsed model's decoded
    positions must be finite; serializing it may raise only FormatError, and what it writes must parse.
    """
    import time

    from .work_count import WorkExceeded, measure
    parse, serialize = PARSERS[case.format], SERIALIZERS[case.format]
    budget = work_budget(len(case.data))
    started = time.perf_counter()            # reported by the campaign (slowest case), never judged
    try:
        work = measure(parse, case.data, budget=budget, catch=(FormatError,))
    except WorkExceeded:
        return CodecResult("too-much-work", f"parse made more than {budget} calls for {len(case.data)} bytes",
                           time.perf_counter() - started)
    except Exception as exc:  # noqa: BLE001 - anything but FormatError is what the fuzzer looks for
        return CodecResult("crash", describe(exc), time.perf_counter() - started)
    seconds, peak, model = time.perf_counter() - started, work.peak, work.result
    outcome = "refused" if model is None else "parsed"
    if model is not None:
        with np.errstate(over="ignore", invalid="ignore"):
            positions = model.vert_xyz if case.format == "ms3d" else model.positions()
        if not np.isfinite(positions).all():
            return CodecResult("non-finite-positions", "the model parses but decodes to inf or NaN", seconds, peak)
        try:
            written = serialize(model)
        except FormatError:
            written = None
        except Exception as exc:  # noqa: BLE001
            return CodecResult("serialize-crash", describe(exc), seconds, peak)
        if written is not None:
            try:
                parse(written)
            except Exception as exc:  # noqa: BLE001 - the writer wrote a file the reader refuses
                return CodecResult("unreadable-output", describe(exc), seconds, peak)
    if peak > MEMORY_FACTOR * len(case.data) + MEMORY_SLACK:
        return CodecResult("memory", f"parse allocated {peak} bytes for {len(case.data)}", seconds, peak)
    return CodecResult(outcome, "", seconds, peak)
