"""Fuzzing the parsers without Blender: every case parses or raises FormatError, in bounded time and
memory, and whatever parses serializes (or raises FormatError) into bytes that parse again.

``FUZZ_CASES`` (default 300) cases per format from :mod:`fuzzing`, seeded by ``FUZZ_SEED`` (default 0).
The longer campaign is ``tools/fuzz_campaign.py``.
"""
from __future__ import annotations

import os
import tracemalloc
from itertools import islice

import numpy as np
import pytest
from support import fuzzing
from support.md2_synthetic import grid_model
from support.work_count import Work, WorkExceeded, assert_linear, measure

from formats.errors import FormatError
from formats.images.pcx import decode_pcx
from formats.md2.codec import HEADER as HEADER_MD2
from formats.md2.codec import parse_md2, serialize_md2
from formats.mdl.codec import MdlFrameSlot, MdlModel, parse_mdl, serialize_mdl
from formats.ms3d.codec import parse_ms3d
from formats.ms3d.records import Ms3dComments, Ms3dGroup, Ms3dJoint, Ms3dModel, Ms3dVertexExtras
from formats.ms3d.write import serialize_ms3d

CASES = int(os.environ.get("FUZZ_CASES", "300"))
SEED = int(os.environ.get("FUZZ_SEED", "0"))
SHOWN = 10


def check_case(case: fuzzing.Case) -> str | None:
    """None if ``case`` behaves (see :func:`fuzzing.run_codec_case`), else what went wrong."""
    result = fuzzing.run_codec_case(case)
    return f"{result.outcome}: {result.detail}" if result.outcome in fuzzing.CODEC_FAILURES else None


@pytest.fixture
def traced():
    tracemalloc.start()
    yield
    tracemalloc.stop()


@pytest.mark.parametrize("fmt", fuzzing.FORMATS)
def test_every_case_parses_or_raises_format_error(fmt, traced):
    failures = []
    for case in islice(fuzzing.iter_cases(fmt, SEED), CASES):
        problem = check_case(case)
        if problem:
            failures.append(f"{case.name}: {problem}\n    {fuzzing.hex_snippet(case.data)}")
    assert not failures, (f"{len(failures)} of {CASES} {fmt} cases failed (FUZZ_SEED={SEED}):\n"
                          + "\n".join(failures[:SHOWN]))


@pytest.mark.parametrize("fmt", fuzzing.FORMATS)
def test_the_mix_is_fair_and_deterministic(fmt):
    first = fuzzing.cases(fmt, 2 * len(fuzzing.GENERATORS), SEED)
    assert [c.name.split("/")[1] for c in first] == list(fuzzing.GENERATORS) * 2
    assert first == fuzzing.cases(fmt, len(first), SEED)
    assert first != fuzzing.cases(fmt, len(first), SEED + 1)
    assert all(c.format == fmt and isinstance(c.data, bytes) for c in first)


@pytest.mark.parametrize("fmt", fuzzing.FORMATS)
def test_layouts_find_every_block(fmt):
    """The walk the truncation and inflation mutations rely on agrees with the parser: MDL and MS3D
    blocks follow each other and end where the parser's trailing bytes begin; MD2 blocks lie inside
    ``ofs_end``."""
    for seed in fuzzing.seeds(fmt):
        try:
            model = fuzzing.PARSERS[fmt](seed.data)
        except FormatError:
            continue
        blocks = sorted(seed.layout.blocks, key=lambda b: b[1])
        assert blocks and len(seed.layout.boundaries) >= 3, seed.name
        if fmt == "md2":
            ofs_end = int(np.frombuffer(seed.data, HEADER_MD2, count=1)[0]["ofs_end"])
            assert all(end <= ofs_end for _, _, end in blocks), seed.name
            continue
        for (name_a, _, end_a), (name_b, start_b, _) in zip(blocks, blocks[1:]):
            assert end_a <= start_b, (seed.name, name_a, name_b)
        trailing = model.trailing_bytes if fmt == "mdl" else len(model.trailing)
        assert seed.layout.walked == len(seed.data) - trailing, seed.name


@pytest.mark.parametrize("fmt", fuzzing.FORMATS)
def test_truncation_at_every_block_boundary(fmt, traced):
    """Every seed cut at every block boundary (a cut before an optional or trailing block is a
    valid file; any other cut must be refused)."""
    failures = []
    for seed in fuzzing.seeds(fmt):
        for cut in seed.layout.boundaries:
            if cut < len(seed.data):
                problem = check_case(fuzzing.Case(fmt, f"{seed.name}/cut@{cut}", seed.data[:cut]))
                if problem:
                    failures.append(f"{seed.name} cut at {cut}: {problem}")
    assert not failures, "\n".join(failures[:SHOWN])


@pytest.mark.parametrize("fmt", fuzzing.FORMATS)
def test_inflated_counts_cost_nothing(fmt, traced):
    """Every count, size and offset field of every seed at its largest and smallest values."""
    failures = []
    for seed in fuzzing.seeds(fmt):
        for f in seed.layout.fields:
            if f.role not in ("count", "size", "offset"):
                continue
            for value in (0xFFFF, 0x8000) if f.kind == "<u2" else (2**31 - 1, -2**31, -1, 2**30):
                case = fuzzing.Case(fmt, f"{seed.name}/{f.name}={value}", fuzzing.with_field(seed.data, f, value))
                problem = check_case(case)
                if problem:
                    failures.append(f"{case.name}: {problem}")
    assert not failures, "\n".join(failures[:SHOWN])


def _parse_work(fmt: str, data: bytes) -> Work:
    return measure(fuzzing.PARSERS[fmt], data, catch=(FormatError,))


@pytest.mark.parametrize("fmt", fuzzing.FORMATS)
def test_junk_padding_costs_linear_work(fmt):
    """Bytes after the model cost at most a copy and a hash: the same calls whatever their length."""
    seed = min(fuzzing.seeds(fmt), key=lambda s: abs(len(s.data) - 20000))
    inputs = [seed.data + b"\xab" * (k * len(seed.data)) for k in (4, 32, 128)]
    works = [_parse_work(fmt, data) for data in inputs]
    assert_linear(works, [len(d) for d in inputs], f"{seed.name} padded")
    assert len({w.calls for w in works}) == 1, [w.calls for w in works]


def _many_records(fmt: str, k: int) -> bytes:
    """A file whose record count (frames, frame groups, groups and joints) grows with ``k``."""
    if fmt == "md2":
        return serialize_md2(grid_model(nx=2, ny=2, frames=8 * k))
    if fmt == "mdl":
        frames = [MdlFrameSlot(2 * i, 2, np.array([0.1, 0.2], np.float32), np.zeros(4, np.uint8),
                               np.zeros(4, np.uint8)) for i in range(8 * k)]
        poses = 16 * k
        return serialize_mdl(MdlModel(
            scale=np.ones(3, np.float32), translate=np.zeros(3, np.float32), bounding_radius=1.0,
            eye_position=np.zeros(3, np.float32), skin_width=4, skin_height=4, synctype=0, flags=0, size=1.0,
            skins=[], onseam=np.zeros(3, np.int32), s=np.zeros(3, np.int32), t=np.zeros(3, np.int32),
            facesfront=np.ones(1, np.int32), triangles=np.array([[0, 1, 2]], np.int32),
            pose_names=[f"f{i}" for i in range(poses)], pose_verts=np.zeros((poses, 3, 3), np.uint8),
            pose_normals=np.zeros((poses, 3), np.uint8), pose_bbox_min=np.zeros((poses, 4), np.uint8),
            pose_bbox_max=np.zeros((poses, 4), np.uint8), frames=frames))
    tris = 8 * k
    return serialize_ms3d(Ms3dModel(
        vert_flags=np.zeros(3, np.uint8), vert_xyz=np.zeros((3, 3), np.float32), vert_bone=np.zeros(3, np.int8),
        vert_refcount=np.zeros(3, np.uint8), tri_flags=np.zeros(tris, np.uint16),
        tri_vertices=np.tile(np.arange(3, dtype=np.uint16), (tris, 1)),
        tri_normals=np.zeros((tris, 3, 3), np.float32), tri_s=np.zeros((tris, 3), np.float32),
        tri_t=np.zeros((tris, 3), np.float32), tri_smoothing=np.zeros(tris, np.uint8),
        tri_group=np.arange(tris, dtype=np.uint8),
        groups=[Ms3dGroup(0, b"g".ljust(32, b"\0"), np.array([i], np.uint16)) for i in range(tris)],
        joints=[Ms3dJoint(0, b"j".ljust(32, b"\0"), bytes(32), np.zeros(3, np.float32), np.zeros(3, np.float32),
                          np.zeros((2, 4), np.float32), np.zeros((1, 4), np.float32)) for _ in range(8 * k)]))


@pytest.mark.parametrize("fmt", fuzzing.FORMATS)
def test_record_count_costs_linear_work(fmt):
    """Eight times the records, at most about eight times the calls and the memory: no loop over pairs of
    records, no allocation that outgrows the file (counted, not timed: see :mod:`work_count`)."""
    inputs = [_many_records(fmt, k) for k in (4, 32)]
    works = [_parse_work(fmt, data) for data in inputs]
    assert all(w.error is None for w in works)
    assert_linear(works, [len(d) for d in inputs], f"{fmt} with many records")


# ---------------------------------------------------------------------------------------------
# crashes the fuzzers found, kept as plain regression tests

@pytest.mark.parametrize("subversion", [1, 2, 3])
def test_ms3d_vertex_extras_of_a_model_without_vertices(subversion):
    """Found by the ``generated`` MS3D generator: ``reshape(0, -1)`` raised ValueError."""
    model = Ms3dModel(
        vert_flags=np.zeros(0, np.uint8), vert_xyz=np.zeros((0, 3), np.float32), vert_bone=np.zeros(0, np.int8),
        vert_refcount=np.zeros(0, np.uint8), tri_flags=np.zeros(0, np.uint16),
        tri_vertices=np.zeros((0, 3), np.uint16), tri_normals=np.zeros((0, 3, 3), np.float32),
        tri_s=np.zeros((0, 3), np.float32), tri_t=np.zeros((0, 3), np.float32),
        tri_smoothing=np.zeros(0, np.uint8), tri_group=np.zeros(0, np.uint8))
    model.comments = Ms3dComments()
    model.vertex_extras = Ms3dVertexExtras(np.zeros((0, 3), np.int8), np.zeros((0, 3), np.uint8),
                                           np.zeros((0, subversion - 1), np.uint32), subversion)
    data = serialize_ms3d(model)
    parsed = parse_ms3d(data)
    assert parsed.vertex_extras.subversion == subversion
    assert parsed.vertex_extras.extra.shape == (0, subversion - 1)
    assert serialize_ms3d(parsed) == data


def test_pcx_skins_decode_or_raise_format_error(traced):
    """The skin decoder the MD2 import reaches: run-length data may expand 63-fold into RGBA, hence
    its own memory bound; its work is held to the parsers' call budget (counted, not timed)."""
    failures = []
    for case in fuzzing.pcx_cases(max(CASES // 2, 20), SEED):
        try:
            work = measure(decode_pcx, case.data, budget=fuzzing.work_budget(len(case.data)), catch=(FormatError,))
        except WorkExceeded:
            failures.append(f"{case.name}: more than {fuzzing.work_budget(len(case.data))} calls")
            continue
        except Exception as exc:  # noqa: BLE001
            failures.append(f"{case.name}: {fuzzing.describe(exc)}\n    {fuzzing.hex_snippet(case.data)}")
            continue
        if work.peak > 600 * len(case.data) + (1 << 20):
            failures.append(f"{case.name}: {work.peak} bytes")
    assert not failures, "\n".join(failures[:SHOWN])


def test_md2_grid_that_overflows_float32_is_refused():
    """Found by ``overwrite`` (a frame scale of 3.4e38): the file parsed, and the import built a mesh
    with infinite coordinates that the exporter then refused."""
    model = grid_model()
    model.frame_scale[2] = [1.0, 3.4e38, 1.0]
    data = serialize_md2(model)
    header = np.frombuffer(data, HEADER_MD2, count=1)[0]
    with pytest.raises(FormatError) as info:
        parse_md2(data)
    assert info.value.field == "frame 2 scale"
    assert info.value.offset == int(header["ofs_frames"]) + 2 * int(header["framesize"])
    model.frame_scale[2] = [1.0, 1e36, 1.0]           # 255 x 1e36 still fits: accepted
    assert np.isfinite(parse_md2(serialize_md2(model)).positions()).all()


def test_mdl_grid_that_overflows_float32_is_refused():
    data = bytearray(_many_records("mdl", 1))
    data[8:12] = np.float32(2e36).tobytes()            # scale[0]
    with pytest.raises(FormatError) as info:
        parse_mdl(bytes(data))
    assert (info.value.field, info.value.offset) == ("scale", 8)


# ---------------------------------------------------------------------------------------------
# archives (PACK and PK3): open, list and read every member, or refuse with ArchiveError

@pytest.mark.parametrize("kind", ["pak", "pk3"])
def test_every_archive_case_opens_or_raises_archive_error(kind, traced, tmp_path):
    from support import fuzzing_archives
    failures, outcomes = [], set()
    for case in islice(fuzzing_archives.iter_cases(kind, SEED), CASES):
        result = fuzzing_archives.run_archive_case(case, tmp_path)
        outcomes.add(result.outcome)
        if result.outcome in fuzzing.CODEC_FAILURES:
            failures.append(f"{case.name}: {result.outcome}: {result.detail}\n    {fuzzing.hex_snippet(case.data)}")
    assert not failures, (f"{len(failures)} of {CASES} {kind} cases failed (FUZZ_SEED={SEED}):\n"
                          + "\n".join(failures[:SHOWN]))
    assert outcomes == {"parsed", "refused"}, outcomes


@pytest.mark.parametrize("kind", ["pak", "pk3"])
def test_archive_layouts_find_every_member(kind, tmp_path):
    """The member blocks the archive mutations move are where the directory says: a PACK member's
    bytes, a zip member's local header."""
    from support import fuzzing_archives

    from formats.archives.archive import open_archive
    for seed in fuzzing_archives.seeds(kind):
        blocks = [(s, e) for name, s, e in seed.layout.blocks if name.startswith("member")]
        path = tmp_path / f"{len(seed.data)}.{kind}"
        path.write_bytes(seed.data)
        with open_archive(path) as archive:
            members = archive.members()
            assert len(blocks) == len(members), seed.name
            for (start, end), member in zip(blocks, members):
                if kind == "pak":
                    assert seed.data[start:end] == archive.read(member.name), (seed.name, member.name)
                else:
                    assert seed.data[start:start + 4] == b"PK\x03\x04", (seed.name, member.name)
