"""The MD5 writer printing blocks of records a column at a time (issue 33: an edited MD5 export prints the
mesh and anim text) no longer makes Python calls per token (fails on the old code, which appended every token
with a call); what it writes for every corpus MD5 file, kept, printed afresh and changed as an edited export
changes it, reads back; and it refuses the records whose text the readers refuse (a NUL in a name, fewer meshes
declared, version 9, a header line twice, a frame twice), each text made here by editing a good file's. That the
bytes are the previous writer's (and the skinning's bits) is checked on demand against any base commit by
tests/export/test_edited_export_files_identity.py (tools/edited_identity.py writes the same variants of every
corpus MD5 file); the values by the round trips and hand-worked files of tests/md5/test_md5_codec.py."""
from __future__ import annotations

import copy
import sys
from pathlib import Path

import numpy as np
import pytest
from support.work_count import measure

from formats.errors import FormatError
from formats.md5.anim import read_md5anim
from formats.md5.mesh import read_md5mesh
from formats.md5.write import write_md5anim, write_md5mesh

MD5_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "md5"
FILES = sorted(p for p in MD5_DIR.rglob("*") if p.suffix in (".md5mesh", ".md5anim"))
DRONE = MD5_DIR / "redeclipse/data/actors/drone/mesh.md5mesh"


def variants(record, seed: int) -> list:
    """The tool's variants: the record as read and changed as an edited export changes it, with and without its
    text (tools/edited_identity.py)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
    from edited_identity import md5_variants
    return md5_variants(record, seed)


def written(record) -> bytes | tuple[str, str]:
    write = write_md5mesh if hasattr(record, "meshes") else write_md5anim
    try:
        return write(copy.copy(record))
    except FormatError as exc:
        return "refused", str(exc)


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
        text = written(item)
        if isinstance(text, bytes):
            suffix_reader(text)


BROKEN = ["mesh nul name", "mesh fewer meshes declared", "mesh version 9", "mesh commandline twice",
          "anim nul name", "anim frame twice", "anim version 9"]


def broken(case: str) -> tuple[object, bytes]:
    """A record the readers would refuse and the text it stands for: a good drone file's text edited."""
    kind, change = case.split(" ", 1)
    path = DRONE if kind == "mesh" else DRONE.parent / "forward.md5anim"
    read = read_md5mesh if kind == "mesh" else read_md5anim
    record = read(path.read_bytes())
    record.source = None
    text = written(record)
    if change == "nul name":
        name = record.joint_names[1]
        record.joint_names[1] = "a\0b"
        text = text.replace(f'"{name}"'.encode(), b'"a\0b"', 1)
    elif change == "fewer meshes declared":
        record.declared_meshes = 1
        text = text.replace(f"numMeshes {len(record.meshes)}".encode(), b"numMeshes 1", 1)
    elif change == "version 9":
        record.header.version = 9
        text = text.replace(b"MD5Version 10", b"MD5Version 9", 1)
    elif change == "commandline twice":
        record.header.order = ("MD5Version", "commandline", "commandline")
        line = text[text.index(b"commandline"):text.index(b"\n", text.index(b"commandline")) + 1]
        text = text.replace(line, line + line, 1)
    else:
        record.frame_order = np.zeros(record.num_frames, np.int64)
        text = text.replace(b"frame 1 {", b"frame 0 {", 1)
    assert text != written(read(path.read_bytes()))
    return record, text


@pytest.mark.skipif(not DRONE.is_file(), reason="corpus drone not found")
@pytest.mark.parametrize("case", BROKEN)
def test_the_writer_refuses_what_the_readers_refuse(case):
    record, text = broken(case)
    write, read = (write_md5mesh, read_md5mesh) if case.startswith("mesh") else (write_md5anim, read_md5anim)
    with pytest.raises(FormatError):
        read(text)
    with pytest.raises(FormatError):
        write(record)
