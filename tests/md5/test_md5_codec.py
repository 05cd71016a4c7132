"""MD5 codec (formats/md5): every corpus file read and compared with a small regex reader written here,
written back byte for byte, printed afresh within its printed precision, checked against Assimp's counts
and the exporter's own bounds; skinning of a hand-built model against values worked out by hand; bad
text at every line gives our error with the line and nothing else."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from support.environment import corpus_files, corpus_params

from formats.errors import FormatError
from formats.md5.anim import read_md5anim
from formats.md5.limits import MAX_JOINTS, MAX_WEIGHTS_PER_VERTEX, mesh_problems
from formats.md5.mesh import read_md5mesh
from formats.md5.records import Md5Anim, Md5Header, Md5Mesh, Md5MeshPart
from formats.md5.skinning import bind_joints, frame_joints, quat_w, skin_vertices
from formats.md5.write import write_md5anim, write_md5mesh

MESHES = "md5/**/*.md5mesh"
ANIMS = "md5/**/*.md5anim"
NUM = r"(-?[0-9.eE+-]+)"


def _strip_comments(text: str) -> str:
    return re.sub(r"//[^\n]*", "", text)


def regex_mesh(data: bytes) -> dict:
    """An independent reading: one regex per record kind over the whole text."""
    text = _strip_comments(data.decode("cp1252"))
    joints = re.findall(rf'"([^"]*)"\s+(-?\d+)\s+\(\s*{NUM}\s+{NUM}\s+{NUM}\s*\)\s+\(\s*{NUM}\s+{NUM}\s+{NUM}\s*\)',
                        text.split("joints", 1)[1].split("}", 1)[0])
    meshes = []
    for block in re.findall(r"\bmesh\s*\{(.*?)\}", text, re.S):
        verts = re.findall(rf"\bvert\s+(\d+)\s+\(\s*{NUM}\s+{NUM}\s*\)\s+(\d+)\s+(\d+)", block)
        tris = re.findall(r"\btri\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)", block)
        weights = re.findall(rf"\bweight\s+(\d+)\s+(\d+)\s+{NUM}\s+\(\s*{NUM}\s+{NUM}\s+{NUM}\s*\)", block)
        shader = re.search(r'\bshader\s+"([^"]*)"', block)
        meshes.append(dict(shader=shader.group(1) if shader else None,
                           verts=np.array(verts, float).reshape(-1, 5), tris=np.array(tris, int).reshape(-1, 4),
                           weights=np.array(weights, float).reshape(-1, 6)))
    return dict(num_joints=int(re.search(r"numJoints\s+(\d+)", text).group(1)), joints=joints, meshes=meshes)


def regex_anim(data: bytes) -> dict:
    text = _strip_comments(data.decode("cp1252"))
    head = {key: float(re.search(rf"\b{key}\s+{NUM}", text).group(1))
            for key in ("numFrames", "numJoints", "frameRate", "numAnimatedComponents")}
    hierarchy = re.findall(r'"([^"]*)"\s+(-?\d+)\s+(\d+)\s+(\d+)', text.split("hierarchy", 1)[1].split("}", 1)[0])
    vector_pairs = rf"\(\s*{NUM}\s+{NUM}\s+{NUM}\s*\)\s*\(\s*{NUM}\s+{NUM}\s+{NUM}\s*\)"
    bounds = re.findall(vector_pairs, text.split("bounds", 1)[1].split("}", 1)[0])
    base = re.findall(vector_pairs, text.split("baseframe", 1)[1].split("}", 1)[0])
    frames = {int(k): np.array(body.split(), float) for k, body in re.findall(r"\bframe\s+(\d+)\s*\{([^}]*)\}", text)}
    return dict(head=head, hierarchy=hierarchy, bounds=np.array(bounds, float).reshape(-1, 6),
                base=np.array(base, float).reshape(-1, 6), frames=frames)


@pytest.mark.parametrize("path", corpus_params(MESHES))
def test_corpus_mesh_reads_as_the_regex_reader(path: Path):
    data = path.read_bytes()
    mesh = read_md5mesh(data)
    expected = regex_mesh(data)
    assert mesh.num_joints == expected["num_joints"] == len(expected["joints"])
    assert mesh.joint_names == [j[0] for j in expected["joints"]]
    assert mesh.joint_parents.tolist() == [int(j[1]) for j in expected["joints"]]
    joint_numbers = np.array([j[2:] for j in expected["joints"]], float)
    assert np.array_equal(np.hstack([mesh.joint_pos, mesh.joint_orient]), joint_numbers)
    assert len(mesh.meshes) == len(expected["meshes"])
    for part, block in zip(mesh.meshes, expected["meshes"]):
        assert part.shader == block["shader"]
        order = np.argsort(block["verts"][:, 0])
        verts = block["verts"][order]
        assert np.array_equal(part.uv, verts[:, 1:3])
        assert np.array_equal(part.weight_start, verts[:, 3]) and np.array_equal(part.weight_count, verts[:, 4])
        tris = block["tris"][np.argsort(block["tris"][:, 0])]
        assert np.array_equal(part.triangles, tris[:, 1:])
        weights = block["weights"][np.argsort(block["weights"][:, 0])]
        assert np.array_equal(part.weight_joint, weights[:, 1])
        assert np.array_equal(part.weight_bias, weights[:, 2]) and np.array_equal(part.weight_pos, weights[:, 3:])


@pytest.mark.parametrize("path", corpus_params(ANIMS))
def test_corpus_anim_reads_as_the_regex_reader(path: Path):
    data = path.read_bytes()
    anim = read_md5anim(data)
    expected = regex_anim(data)
    head = expected["head"]
    assert (anim.num_frames, anim.num_joints, anim.frame_rate, anim.num_components) == (
        head["numFrames"], head["numJoints"], head["frameRate"], head["numAnimatedComponents"])
    assert anim.joint_names == [h[0] for h in expected["hierarchy"]]
    numbers = np.array([h[1:] for h in expected["hierarchy"]], int)
    assert np.array_equal(np.stack([anim.joint_parents, anim.joint_flags, anim.joint_start], 1), numbers)
    assert np.array_equal(anim.bounds.reshape(-1, 6), expected["bounds"])
    assert np.array_equal(np.hstack([anim.base_pos, anim.base_orient]), expected["base"])
    assert sorted(expected["frames"]) == list(range(anim.num_frames))
    for k, values in expected["frames"].items():
        assert np.array_equal(anim.frames[k], values)


@pytest.mark.parametrize("path", corpus_params(MESHES) + corpus_params(ANIMS))
def test_corpus_file_comes_back_byte_for_byte(path: Path):
    data = path.read_bytes()
    if path.suffix == ".md5mesh":
        assert write_md5mesh(read_md5mesh(data)) == data
    else:
        assert write_md5anim(read_md5anim(data)) == data


def _printed_step(data: bytes) -> float:
    """Half the unit of the finest decimal the file prints (what its numbers are known to)."""
    decimals = max((len(d) for d in re.findall(rb"\d\.(\d+)\b", data)), default=0)
    return 0.5 * 10.0 ** -decimals


@pytest.mark.parametrize("path", corpus_params(MESHES))
def test_corpus_mesh_printed_afresh_keeps_values_within_printed_precision(path: Path):
    data = path.read_bytes()
    mesh = read_md5mesh(data)
    again = read_md5mesh(write_md5mesh(mesh, keep_text=False))     # in the style detected in the file
    assert again.joint_names == mesh.joint_names and np.array_equal(again.joint_parents, mesh.joint_parents)
    step = _printed_step(data) * 1.0001
    assert np.allclose(again.joint_pos, mesh.joint_pos, rtol=0, atol=step)
    for a, b in zip(again.meshes, mesh.meshes):
        assert a.shader == b.shader and np.array_equal(a.triangles, b.triangles)
        assert np.array_equal(a.weight_start, b.weight_start) and np.array_equal(a.weight_joint, b.weight_joint)
        assert np.allclose(a.weight_pos, b.weight_pos, rtol=0, atol=step)
        assert np.allclose(a.uv, b.uv, rtol=0, atol=step)
        assert np.allclose(a.weight_bias, b.weight_bias, rtol=0, atol=step)


def _anim_close(a: Md5Anim, b: Md5Anim, step: float) -> None:
    assert a.joint_names == b.joint_names and np.array_equal(a.joint_flags, b.joint_flags)
    assert np.array_equal(a.joint_start, b.joint_start) and a.frame_rate == b.frame_rate
    for x, y in ((a.bounds, b.bounds), (a.base_pos, b.base_pos), (a.base_orient, b.base_orient), (a.frames, b.frames)):
        assert x.shape == y.shape and np.allclose(x, y, rtol=0, atol=step)


@pytest.mark.parametrize("path", corpus_params(ANIMS))
def test_corpus_anim_printed_afresh_in_its_own_style(path: Path):
    """The detected style (the file's largest count of decimals) gives every number back within it."""
    data = path.read_bytes()
    anim = read_md5anim(data)
    printed = write_md5anim(anim, keep_text=False)
    _anim_close(read_md5anim(printed), anim, _printed_step(data) * 1.0001)


def test_corpus_counts_printed_afresh():
    """How many files the fresh printer (no kept text) gives back byte for byte, in their detected style:
    the Doom 3-style files (tabs, %f) all; the report quotes the figure."""
    files = corpus_files(MESHES) + corpus_files(ANIMS)
    if not files:
        pytest.skip("corpus not found")
    same = 0
    for path in files:
        data = path.read_bytes()
        model = read_md5mesh(data) if path.suffix == ".md5mesh" else read_md5anim(data)
        writer = write_md5mesh if path.suffix == ".md5mesh" else write_md5anim
        same += writer(model, keep_text=False) == data
    assert same >= len(files) // 2, f"{same} of {len(files)}"


def test_changed_value_changes_only_its_token():
    data = MESH_TEXT
    mesh = read_md5mesh(data)
    mesh.meshes[0].weight_bias[1] = 0.25
    mesh.joint_pos[1, 2] = -7.5
    out = write_md5mesh(mesh)
    assert out == data.replace(b"weight 1 1 0.500000", b"weight 1 1 0.250000").replace(
        b"( 0.000000 0.000000 2.000000 )", b"( 0.000000 0.000000 -7.500000 )")


def test_changed_counts_print_the_whole_file_in_the_files_style():
    mesh = read_md5mesh(MESH_TEXT)
    part = mesh.meshes[0]
    part.triangles = part.triangles[:1]
    out = write_md5mesh(mesh)
    again = read_md5mesh(out)
    assert len(again.meshes[0].triangles) == 1 and b"\tnumtris 1\n" in out
    assert np.array_equal(again.meshes[0].weight_pos, part.weight_pos)


# --- a hand-built model -----------------------------------------------------------------------------
S = 0.7071067811865476     # sin 45
MESH_TEXT = b"""MD5Version 10
commandline ""

numJoints 2
numMeshes 1

joints {
\t"root"\t-1 ( 1.000000 2.000000 3.000000 ) ( 0.000000 0.000000 0.707107 )\t\t// 
\t"tip"\t0 ( 0.000000 0.000000 2.000000 ) ( 0.000000 0.000000 0.000000 )\t\t// root
}

mesh {
\tshader "m"

\tnumverts 3
\tvert 0 ( 0.000000 0.000000 ) 0 1
\tvert 1 ( 1.000000 0.000000 ) 1 2
\tvert 2 ( 0.000000 1.000000 ) 3 1

\tnumtris 1
\ttri 0 0 1 2

\tnumweights 4
\tweight 0 0 1.000000 ( 1.000000 0.000000 0.000000 )
\tweight 1 1 0.500000 ( 0.000000 0.000000 0.000000 )
\tweight 2 0 0.500000 ( 0.000000 1.000000 0.000000 )
\tweight 3 1 1.000000 ( 0.000000 0.000000 1.000000 )
}

"""
ANIM_TEXT = b"""MD5Version 10
commandline ""

numFrames 2
numJoints 2
frameRate 24
numAnimatedComponents 8

hierarchy {
\t"root"\t-1 63 0\t//
\t"tip"\t0 3 6\t// root
}

bounds {
\t( 0.000000 0.000000 0.000000 ) ( 1.000000 1.000000 1.000000 )
\t( 0.000000 0.000000 0.000000 ) ( 1.000000 1.000000 1.000000 )
}

baseframe {
\t( 0.000000 0.000000 0.000000 ) ( 0.000000 0.000000 0.000000 )
\t( 0.000000 0.000000 2.000000 ) ( 0.000000 0.000000 0.000000 )
}

frame 0 {
\t1.000000 2.000000 3.000000 0.000000 0.000000 0.000000
\t0.000000 0.000000
}

frame 1 {
\t0.000000 0.000000 0.000000 0.000000 0.000000 0.707107
\t5.000000 0.000000
}

"""


def test_hand_built_mesh_skins_to_hand_worked_positions():
    mesh = read_md5mesh(MESH_TEXT)
    assert write_md5mesh(mesh) == MESH_TEXT
    assert np.allclose(quat_w(mesh.joint_orient)[0], [0, 0, 0.707107, -0.7071065], atol=1e-6)
    # root: at (1 2 3), w = -sqrt(1 - .707107^2) = -.707107: q = -(0 0 -s c), a turn of -90 deg about z,
    # (x, y, z) -> (y, -x, z). tip: object space (0 0 2), no turn.
    # v0 = 1 * (rot (1 0 0) + (1 2 3)) = (0 -1 0) + (1 2 3) = (1 1 3)
    # v1 = .5 * ((0 0 0) + (0 0 2)) + .5 * (rot (0 1 0) + (1 2 3)) = (0 0 1) + .5 * (2 2 3) = (1 1 2.5)
    # v2 = 1 * ((0 0 1) + (0 0 2)) = (0 0 3)
    positions = skin_vertices(mesh.meshes[0], *bind_joints(mesh))
    assert np.allclose(positions, [[1, 1, 3], [1, 1, 2.5], [0, 0, 3]], atol=1e-5)


def test_hand_built_anim_frames_to_hand_worked_joints():
    anim = read_md5anim(ANIM_TEXT)
    assert write_md5anim(anim) == ANIM_TEXT
    pos, quat = frame_joints(anim)
    # frame 0: root at (1 2 3), no turn (w = -1); tip takes Tx Ty = (0 0) and its base Tz = 2 -> (1 2 5)
    assert np.allclose(pos[0], [[1, 2, 3], [1, 2, 5]])
    assert np.allclose(quat[0], [[0, 0, 0, -1], [0, 0, 0, 1]])      # -1 * -1 = 1 after the product
    # frame 1: root at 0, q = (0 0 .707107 -.707107): -90 deg about z; tip local (5 0 2) -> (0 -5 2)
    assert np.allclose(pos[1], [[0, 0, 0], [0, -5, 2]], atol=1e-5)
    # the mesh skinned with frame 1: v2 hangs 1 above the tip in its space -> tip + rot(0 0 1) = (0 -5 3)
    mesh = read_md5mesh(MESH_TEXT)
    moved = skin_vertices(mesh.meshes[0], pos[1], quat[1])
    assert np.allclose(moved[2], [0, -5, 3], atol=1e-5)
    assert np.allclose(moved[0], [0, -1, 0], atol=1e-5)              # root at 0 turned: rot (1 0 0)


DOOR_ANIMS = "md5/redeclipse/data/unnamed/door0*/*.md5anim"


@pytest.mark.parametrize("path", corpus_params(DOOR_ANIMS))
def test_corpus_skinning_matches_the_exporters_bounds(path: Path):
    """The doors' exporter wrote each frame's bounds from its own skinning: ours gives the same boxes."""
    mesh = read_md5mesh(next(path.parent.glob("*.md5mesh")).read_bytes())
    anim = read_md5anim(path.read_bytes())
    pos, quat = frame_joints(anim)
    vertices = np.concatenate([skin_vertices(p, pos, quat) for p in mesh.meshes], axis=1)
    assert np.allclose(vertices.min(1), anim.bounds[:, 0], atol=1e-5)
    assert np.allclose(vertices.max(1), anim.bounds[:, 1], atol=1e-5)


@pytest.mark.parametrize("path", corpus_params(MESHES))
def test_corpus_mesh_counts_match_assimp(path: Path, tmp_path: Path):
    from support.engine_tools import assimp_info
    mesh = read_md5mesh(path.read_bytes())
    if mesh.header.order[:1] != ("MD5Version",) or any(p.shader is None for p in mesh.meshes):
        pytest.skip("Assimp (as the engines) wants MD5Version first and a shader per mesh")
    if mesh.header.encoding != "utf-8":
        pytest.skip("assimp prints the file's cp1252 shader name, which the helper reads as UTF-8")
    info = assimp_info(path)
    assert info.faces == sum(len(p.triangles) for p in mesh.meshes)
    assert info.meshes >= len(mesh.meshes)       # Assimp splits a mesh whose weights need more bones


# --- quirks of real files ---------------------------------------------------------------------------
def _corpus(name: str) -> bytes:
    files = [f for f in corpus_files("md5/**/" + name.split("/")[-1]) if f.as_posix().endswith(name)]
    if not files:
        pytest.skip(f"corpus file {name} not found")
    return files[0].read_bytes()


def test_declared_mesh_count_larger_than_the_blocks_is_read_and_kept():
    data = _corpus("props/ball/ball.md5mesh")
    mesh = read_md5mesh(data)
    assert len(mesh.meshes) == 1 and mesh.declared_meshes == 2
    assert any("numMeshes is 2" in w and "FTE" in w for w in mesh.warnings)
    assert write_md5mesh(mesh) == data
    mesh.declared_meshes = None
    assert b"numMeshes 1" in write_md5mesh(mesh)


def test_commandline_before_md5version_missing_is_read_with_a_warning():
    data = _corpus("weapons/zapper/mesh.md5mesh")
    mesh = read_md5mesh(data)
    assert mesh.header.version is None and mesh.header.order == ("commandline",)
    assert any("MD5Version" in w and "Q2PRO" in w for w in mesh.warnings)
    assert write_md5mesh(mesh) == data


# --- bad text -----------------------------------------------------------------------------------------
def _mutations(text: bytes):
    lines = text.split(b"\n")
    for n, line in enumerate(lines):
        yield n + 1, b"\n".join(lines[:n]), "cut"                                  # file ends before line n
        yield n + 1, b"\n".join(lines[:n] + lines[n + 1:]), "line removed"
        for old, new in ((rb"-?\d+\.\d+", b"x1.5"), (rb"\b\d+\b", b"1e"), (rb"[{}()]", b""), (rb"\b\d+\b", b"999999")):
            changed = re.sub(old, new, line, count=1)
            if changed != line:
                yield n + 1, b"\n".join(lines[:n] + [changed] + lines[n + 1:]), f"{old!r} -> {new!r}"


@pytest.mark.parametrize("reader,text", [(read_md5mesh, MESH_TEXT), (read_md5anim, ANIM_TEXT)],
                         ids=["md5mesh", "md5anim"])
def test_bad_text_at_every_line_gives_our_error_with_a_line(reader, text):
    refused = 0
    for line, bad, how in _mutations(text):
        try:
            reader(bad)
        except FormatError as error:
            refused += 1
            found = re.search(r"line (\d+)", str(error))
            assert found, f"{how} at line {line}: {error}"
            assert 1 <= int(found.group(1)) <= bad.count(b"\n") + 1, f"{how} at line {line}: {error}"
    assert refused > 2 * text.count(b"\n")


@pytest.mark.parametrize("reader,text,count", [
    (read_md5mesh, MESH_TEXT, b"numverts 3"), (read_md5mesh, MESH_TEXT, b"numweights 4"),
    (read_md5mesh, MESH_TEXT, b"numJoints 2"), (read_md5anim, ANIM_TEXT, b"numFrames 2"),
    (read_md5anim, ANIM_TEXT, b"numAnimatedComponents 8"), (read_md5anim, ANIM_TEXT, b"numJoints 2")])
def test_giant_or_wrong_counts_are_refused_before_allocating(reader, text, count):
    word = count.split()[0]
    for value in (b"99999999999999", b"4000000000", b"1", b"0", b"-1"):
        with pytest.raises(FormatError, match=r"line \d+"):
            reader(text.replace(count, word + b" " + value))


@pytest.mark.parametrize("bad,message", [
    (MESH_TEXT.replace(b"MD5Version 10", b"MD5Version 11"), "MD5Version is 11, expected 10"),
    (MESH_TEXT.replace(b"tri 0 0 1 2", b"tri 0 0 1 3"), "uses vertex 3, outside 0 .. 2: correct the index or numverts"),
    (MESH_TEXT.replace(b"weight 3 1 ", b"weight 3 2 "), "uses joint 2, outside 0 .. 1"),
    (MESH_TEXT.replace(b"vert 2 ( 0.000000 1.000000 ) 3 1", b"vert 2 ( 0.000000 1.000000 ) 3 2"),
     "outside the 4 weights"),
    (MESH_TEXT.replace(b"vert 1 (", b"vert 0 ("), "given twice"),
    (MESH_TEXT.replace(b"0 ( 0.000000 0.000000 2.000000 )", b"5 ( 0.000000 0.000000 2.000000 )"), "parent 5"),
    (MESH_TEXT.replace(b'shader "m"', b'shader "m'), "not closed"),
    (ANIM_TEXT.replace(b"0 3 6", b"0 3 7"), "outside the 8 animated components"),
    (ANIM_TEXT.replace(b"0 3 6", b"0 64 6"), "flags 64"),
    (ANIM_TEXT.replace(b"\"tip\"\t0", b"\"tip\"\t1"), "parent comes before"),
    (ANIM_TEXT.replace(b"frame 1 {", b"frame 0 {"), "given twice"),
    (ANIM_TEXT.replace(b"\t5.000000 0.000000\n", b"\t5.000000\n"),
     "expected a number in frame 1 component 7, found '}'"),
])
def test_specific_refusals_say_what_is_wrong(bad, message):
    reader = read_md5anim if b"numFrames" in bad else read_md5mesh
    with pytest.raises(FormatError, match=re.escape(message)) as caught:
        reader(bad)
    assert re.search(r"line \d+", str(caught.value))


def test_numbers_must_be_whole_tokens():
    with pytest.raises(FormatError, match="line 8"):
        read_md5mesh(MESH_TEXT.replace(b"( 1.000000 2.000000", b"( 1.0abc 2.000000"))
    with pytest.raises(FormatError, match="line 17"):
        read_md5mesh(MESH_TEXT.replace(b"vert 1 ( 1.000000", b"vert 1 ( 1_0"))


# --- limits ---------------------------------------------------------------------------------------------
def test_limit_problems_name_the_engine_limits():
    part = Md5MeshPart(shader="m", uv=np.zeros((1, 2)), weight_start=np.array([0]), weight_count=np.array([5]),
                       triangles=np.zeros((0, 3), int), weight_joint=np.zeros(5, int), weight_bias=np.full(5, .2),
                       weight_pos=np.zeros((5, 3)))
    names = [f"j{i}" for i in range(MAX_JOINTS + 1)]
    mesh = Md5Mesh(joint_names=names, joint_parents=np.full(len(names), -1), joint_pos=np.zeros((len(names), 3)),
                   joint_orient=np.zeros((len(names), 3)), meshes=[part], header=Md5Header())
    problems = mesh_problems(mesh)
    assert any(f"{MAX_JOINTS + 1} joints" in p and "MD5_MAX_JOINTS" in p for p in problems)
    assert any(f"more than {MAX_WEIGHTS_PER_VERTEX} weights" in p for p in problems)
    mesh.joint_names = mesh.joint_names[:2]
    mesh.joint_names[0] = "x" * 32
    assert any("longer than 31 bytes" in p for p in mesh_problems(mesh))
    text = write_md5mesh(Md5Mesh(joint_names=["a"], joint_parents=np.array([-1]), joint_pos=np.zeros((1, 3)),
                                 joint_orient=np.zeros((1, 3)), meshes=[part]))
    assert read_md5mesh(text).meshes[0].weight_count.tolist() == [5]


def test_writer_refuses_names_text_cannot_hold():
    mesh = read_md5mesh(MESH_TEXT)
    mesh.joint_names[0] = 'a"b'
    with pytest.raises(FormatError, match="quote"):
        write_md5mesh(mesh)


def _small_corpus_files() -> list:
    small = [f for f in corpus_files(MESHES) + corpus_files(ANIMS) if f.stat().st_size < 3000]
    return [pytest.param(f, id=f"{f.parent.name}/{f.name}") for f in small] or [
        pytest.param(None, marks=pytest.mark.skip(reason="corpus not found"))]


@pytest.mark.parametrize("path", _small_corpus_files())
def test_bad_text_at_every_line_of_small_corpus_files(path: Path):
    reader = read_md5mesh if path.suffix == ".md5mesh" else read_md5anim
    for line, bad, how in _mutations(path.read_bytes()):
        try:
            reader(bad)
        except FormatError as error:
            assert re.search(r"line \d+", str(error)), f"{how} at line {line}: {error}"


@pytest.mark.parametrize("reader,text", [(read_md5mesh, MESH_TEXT), (read_md5anim, ANIM_TEXT)],
                         ids=["md5mesh", "md5anim"])
def test_random_damage_gives_our_error_or_a_model(reader, text):
    rng = np.random.default_rng(32)
    for _ in range(400):
        data = bytearray(text)
        for _ in range(int(rng.integers(1, 4))):
            at = int(rng.integers(0, len(data)))
            data[at] = int(rng.choice([0, 9, 10, 32, 34, 40, 41, 45, 46, 47, 48, 57, 123, 125, 233, 255]))
        try:
            reader(bytes(data))
        except FormatError as error:
            assert re.search(r"line \d+", str(error))


@pytest.mark.parametrize("change,message", [
    (lambda m: m.meshes[0].triangles.__setitem__((0, 2), 3), "outside its 3 vertices"),
    (lambda m: m.meshes[0].weight_count.__setitem__(2, 2), "past its 4 weights"),
    (lambda m: m.meshes[0].weight_joint.__setitem__(0, 2), "outside the 2 joints"),
    (lambda m: m.joint_parents.__setitem__(1, 2), "parent is outside"),
])
def test_writer_refuses_what_the_reader_would(change, message):
    mesh = read_md5mesh(MESH_TEXT)
    change(mesh)
    with pytest.raises(FormatError, match=message):
        write_md5mesh(mesh)


def test_anim_writer_refuses_components_past_the_frame():
    anim = read_md5anim(ANIM_TEXT)
    anim.joint_start[1] = 7
    with pytest.raises(FormatError, match="outside the animated components"):
        write_md5anim(anim)


def test_pair_problems_name_what_the_engines_compare():
    from formats.md5.limits import pair_problems
    mesh, anim = read_md5mesh(MESH_TEXT), read_md5anim(ANIM_TEXT)
    assert pair_problems(mesh, anim) == []
    anim.joint_names[1] = "end"
    assert pair_problems(mesh, anim) == ["1 joint is named differently in the anim (joint 1 is 'tip' in the mesh, "
                                         "'end' in the anim, line 11): ironwail and FTE refuse the pair, Q2PRO pairs "
                                         "joints by number and draws the mesh bent; give the "
                                         "anim's joints the mesh's names and order"]
    mesh.joint_parents[1] = -1
    assert pair_problems(mesh, anim)[1] == ("1 joint has another parent in the anim (joint 1 'end' has parent -1 in "
                                            "the mesh, 0 in the anim, line 11): ironwail and FTE refuse the pair, "
                                            "Q2PRO pairs joints by number and draws the mesh bent; give the anim the "
                                            "mesh's hierarchy")
    mesh.joint_names.append("extra")
    assert "the anim has 2 joints, the mesh 3" in pair_problems(mesh, anim)[0]


def test_vertices_past_four_weights_are_no_limit_the_exporter_refuses():
    """More than 4 weights on a vertex is said by ``mesh_problems`` (check, info: ironwail draws the 4 largest)
    and kept out of ``mesh_limits`` (what the export refuses), with no message text to filter on."""
    from support.md5_weight_cases import CASES

    from formats.md5.limits import influence_problems, mesh_limits
    from formats.md5.mesh import read_md5mesh
    mesh = read_md5mesh(CASES["more-than-four"])
    assert mesh_limits(mesh) == []
    assert influence_problems(mesh) and mesh_problems(mesh) == influence_problems(mesh)


def test_one_vertex_past_four_weights_is_said_in_the_singular():
    from support.md5_weight_cases import CASES

    from formats.md5.limits import influence_problems
    from formats.md5.mesh import read_md5mesh
    (line,) = influence_problems(read_md5mesh(CASES["more-than-four"]))
    assert line.startswith("1 vertex with more than 4 weights (up to 5; ")
