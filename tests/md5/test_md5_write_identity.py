"""The MD5 writer printing blocks of records a column at a time (issue 33: an edited MD5 export prints the
mesh and anim text) gives the previous writer's bytes (tests/support/md5_write_reference.py, the writer
before the change) for every corpus MD5 file: with its own text kept, printed afresh, with values changed
(a scaled mesh, moved frames, a NaN) and with a broken shape (identity tests: they pass on the old code
by design); and it no longer makes Python calls per token (fails on the old code, which appended every
token with a call)."""
from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest

from formats.errors import FormatError
from formats.md5.anim import read_md5anim
from formats.md5.mesh import read_md5mesh
from formats.md5.write import write_md5anim, write_md5mesh
from support import md5_write_reference as reference
from support.work_count import measure

MD5_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "md5"
FILES = sorted(p for p in MD5_DIR.rglob("*") if p.suffix in (".md5mesh", ".md5anim"))
DRONE = MD5_DIR / "redeclipse/data/actors/drone/mesh.md5mesh"


def variants(record, seed: int) -> list:
    """The record as read, changed in ways an edited export changes it, each with and without its text."""
    rng = np.random.default_rng(seed)
    changed = []
    for change in range(3):
        other = copy.deepcopy(record)
        other.source = record.source
        if hasattr(other, "meshes"):
            if change == 0:
                other.joint_pos = other.joint_pos * 1.1
                for part in other.meshes:
                    part.weight_pos = part.weight_pos * 1.1
            elif change == 1:
                other.meshes[0].uv = np.array(other.meshes[0].uv)
                other.meshes[0].uv[:1] = [np.nan, -np.inf]
                other.joint_orient = np.round(other.joint_orient, 3)
            else:
                other.meshes = other.meshes[::-1]          # another shape: printed afresh in the file's style
        else:
            if change == 0:
                other.frames = other.frames + rng.normal(0, 1e-3, other.frames.shape) * (rng.random(
                    other.frames.shape) < 0.3)
            elif change == 1:
                other.bounds = np.asarray(other.bounds) * 1.1
                other.frame_rate = 24.5
            else:
                other.frames = np.concatenate([other.frames, other.frames[:1]])   # another shape
                other.bounds = np.concatenate([np.asarray(other.bounds), np.asarray(other.bounds)[:1]])
        changed.append(other)
    out = []
    for item in [record] + changed:
        bare = copy.deepcopy(item)
        bare.source = None
        out += [item, bare]
    return out


def written(module, record) -> bytes | tuple[str, str]:
    write = module.write_md5mesh if hasattr(record, "meshes") else module.write_md5anim
    try:
        return write(copy.copy(record))
    except FormatError as exc:
        return "refused", str(exc)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(MD5_DIR)))
def test_the_text_is_the_previous_writers(path):
    data = path.read_bytes()
    record = read_md5mesh(data) if path.suffix == ".md5mesh" else read_md5anim(data)
    for index, item in enumerate(variants(record, len(data))):
        assert written(__import__("formats.md5.write", fromlist=["x"]), item) == written(reference, item), index


def test_no_python_calls_per_token():
    """The mesh: far fewer calls than tokens, kept or printed; the anim: as many calls for four times the
    frames (the calls go with its components, not with frames times components)."""
    if not DRONE.is_file():
        pytest.skip(f"corpus file not found: {DRONE}")
    mesh = read_md5mesh(DRONE.read_bytes())
    tokens = len(mesh.source.tokens)
    kept = measure(write_md5mesh, mesh, memory=False)
    assert kept.result == mesh.source.data and tokens > 30_000
    bare = copy.copy(mesh)
    bare.source = None
    assert max(kept.calls, measure(write_md5mesh, bare, memory=False).calls) < tokens / 20
    anim = read_md5anim((DRONE.parent / "forward.md5anim").read_bytes())
    anim.source = None
    longer = copy.copy(anim)
    longer.frames, longer.bounds = np.tile(anim.frames, (4, 1)), np.tile(anim.bounds, (4, 1, 1))
    calls = [measure(write_md5anim, record, memory=False).calls for record in (anim, longer)]
    assert calls[1] - calls[0] < anim.num_components, calls


@pytest.mark.parametrize("path", FILES[::7], ids=lambda p: str(p.relative_to(MD5_DIR)))
def test_what_the_writer_writes_reads_back(path):
    """The export no longer parses its files after writing them: everything the writer gives reads."""
    data = path.read_bytes()
    suffix_reader = read_md5mesh if path.suffix == ".md5mesh" else read_md5anim
    for item in variants(suffix_reader(data), len(data)):
        text = written(__import__("formats.md5.write", fromlist=["x"]), item)
        if isinstance(text, bytes):
            suffix_reader(text)


def broken_records() -> list:
    """Records the previous writer printed and the readers refuse, each with what breaks it."""
    mesh = read_md5mesh(DRONE.read_bytes())
    anim = read_md5anim((DRONE.parent / "forward.md5anim").read_bytes())
    out = []
    for record, change in ((mesh, "nul name"), (mesh, "fewer meshes declared"), (mesh, "version 9"),
                           (mesh, "commandline twice"), (anim, "nul name"), (anim, "frame twice"), (anim, "version 9")):
        other = copy.deepcopy(record)
        other.source = None
        if change == "nul name":
            other.joint_names[1] = "a\0b"
        elif change == "fewer meshes declared":
            other.declared_meshes = 1
        elif change == "version 9":
            other.header.version = 9
        elif change == "commandline twice":
            other.header.order = ("MD5Version", "commandline", "commandline")
        else:
            other.frame_order = np.zeros(other.num_frames, np.int64)
        out.append(pytest.param(other, id=f"{'mesh' if record is mesh else 'anim'} {change}"))
    return out


@pytest.mark.skipif(not DRONE.is_file(), reason="corpus drone not found")
@pytest.mark.parametrize("record", broken_records() if DRONE.is_file() else [])
def test_the_writer_refuses_what_the_readers_refuse(record):
    write, read = (write_md5mesh, read_md5mesh) if hasattr(record, "meshes") else (write_md5anim, read_md5anim)
    with pytest.raises(FormatError):
        read(reference.write_md5mesh(record) if read is read_md5mesh else reference.write_md5anim(record))
    with pytest.raises(FormatError):
        write(record)


def test_skinned_frames_are_the_previous_bits(monkeypatch):
    """Every corpus mesh skinned with every frame of the anims beside it (what the export's bounds are)
    gives the bits of the previous rotation (sums over the last axis, ``np.cross``) and frame-by-frame
    ``np.add.at`` (identity test: passes on the old code)."""
    from formats.md5 import skinning
    from support.speed_reference import md5_add_batched, md5_quat_rotate
    pairs = [(mesh, anim) for mesh in FILES if mesh.suffix == ".md5mesh"
             for anim in sorted(mesh.parent.glob("*.md5anim"))[:4]]
    compared = 0
    for mesh_path, anim_path in pairs:
        mesh, anim = read_md5mesh(mesh_path.read_bytes()), read_md5anim(anim_path.read_bytes())
        if anim.joint_names != mesh.joint_names:
            continue
        compared += 1
        now = [skinning.skin_vertices(part, *skinning.frame_joints(anim)) for part in mesh.meshes]
        with monkeypatch.context() as patch:
            patch.setattr(skinning, "_add_batched", md5_add_batched)
            patch.setattr(skinning, "quat_rotate", md5_quat_rotate)
            before = [skinning.skin_vertices(part, *skinning.frame_joints(anim)) for part in mesh.meshes]
        for a, b in zip(now, before):
            assert np.array_equal(a.view(np.uint64), b.view(np.uint64)), (mesh_path, anim_path)
    assert compared > 20


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_rotation_is_the_previous_bits(dtype):
    """quat_rotate a component at a time equals the previous arithmetic bit for bit, zeros, signed zeros,
    infinities and NaN included (identity test: passes on the old code)."""
    from formats.md5.skinning import quat_rotate
    from support.speed_reference import md5_quat_rotate
    rng = np.random.default_rng(33)
    q = rng.normal(size=(64, 300, 4)) * 10.0 ** rng.integers(-4, 4, size=(64, 300, 4))
    v = rng.normal(size=(300, 3)) * 10.0 ** rng.integers(-4, 4, size=(300, 3))
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310, 1.0])
    q[0, :, :] = rng.choice(specials, size=(300, 4))
    v[:20] = rng.choice(specials, size=(20, 3))
    q, v = q.astype(dtype), v.astype(dtype)
    with np.errstate(all="ignore"):
        now, before = quat_rotate(q, v), md5_quat_rotate(q, v)
    assert now.dtype == before.dtype and np.array_equal(now.view(f"u{now.itemsize}"), before.view(f"u{now.itemsize}"))
