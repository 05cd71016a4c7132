"""``info`` and ``check`` on MD5 files, without Blender: counts against a regex reading of the text, the anim
beside a mesh and the pair check, the Quake re-release layout (frame counts against the MDL, the .lmp skin)."""
from __future__ import annotations

import re
import shutil

import pytest
from support.environment import CORPUS, corpus_params

DOOR = CORPUS / "md5/redeclipse/data/luckystrike/door1"
MDL = CORPUS / "mdl/librequake/oldone.mdl"


def _regex_counts(text: str) -> dict[str, int]:
    return {"joints": int(re.search(r"numJoints\s+(\d+)", text).group(1)),
            "meshes": len(re.findall(r"^\s*mesh\s*\{", text, re.M)),
            "vertices": len(re.findall(r"^\s*vert\s", text, re.M)),
            "triangles": len(re.findall(r"^\s*tri\s", text, re.M)),
            "weights": len(re.findall(r"^\s*weight\s", text, re.M))}


@pytest.mark.parametrize("path", corpus_params("md5/**/*.md5mesh"))
def test_info_counts_every_corpus_mesh_as_its_text_says(run, path):
    result = run("info", path, block_bpy=True)
    assert result.returncode == 0, result.stderr
    counts = _regex_counts(path.read_text("latin-1"))
    assert ", ".join(f"{k} {v}" for k, v in counts.items()) in result.stdout


def test_info_of_an_anim_gives_frames_rate_and_joints(run):
    path = DOOR / "open.md5anim"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    text = path.read_text("latin-1")
    frames = int(re.search(r"numFrames\s+(\d+)", text).group(1))
    rate = float(re.search(r"frameRate\s+(\S+)", text).group(1))
    result = run("info", path, block_bpy=True)
    assert result.returncode == 0, result.stderr
    assert f"frames {frames}" in result.stdout and f"{frames} frames at {rate:g} fps" in result.stdout


def test_check_refuses_a_pair_whose_joints_differ(run, tmp_path):
    """An anim beside the mesh with another joint count: what ironwail, Q2PRO and FTE refuse."""
    mesh = CORPUS / "md5/redeclipse/data/weapons/zapper/mesh.md5mesh"
    if not (mesh.is_file() and (DOOR / "open.md5anim").is_file()):
        pytest.skip("corpus MD5 files not found")
    shutil.copy(mesh, tmp_path / "gun.md5mesh")
    shutil.copy(DOOR / "open.md5anim", tmp_path / "gun.md5anim")
    result = run("info", tmp_path / "gun.md5mesh", block_bpy=True)
    assert "with gun.md5anim: the anim has 1 joint, the mesh 6: ironwail, Q2PRO and FTE refuse the pair" \
        in result.stdout


def test_info_of_the_quake_rerelease_layout(run, tmp_path):
    """progs/m.md5mesh beside progs/m.mdl: the anim's frames against the MDL's, the .lmp skin looked up."""
    if not (MDL.is_file() and (DOOR / "mesh.md5mesh").is_file()):
        pytest.skip("corpus files not found")
    progs = tmp_path / "progs"
    progs.mkdir()
    shutil.copy(MDL, progs / "m.mdl")
    text = re.sub(r'shader "[^"]*"', 'shader "m"', (DOOR / "mesh.md5mesh").read_text("latin-1"))
    (progs / "m.md5mesh").write_text(text, "latin-1")
    shutil.copy(DOOR / "open.md5anim", progs / "m.md5anim")
    result = run("info", progs / "m.md5mesh", block_bpy=True)
    out = result.stdout
    assert "the anim has 12 frames, m.mdl 67" in out
    assert "m_00_00.lmp: MISSING" in out
    (progs / "m_00_00.lmp").write_bytes(bytes([2, 0, 0, 0, 1, 0, 0, 0, 7, 9]))
    out = run("info", progs / "m.md5mesh", block_bpy=True).stdout
    assert f"m_00_00.lmp: found {progs / 'm_00_00.lmp'}" in out


def test_info_of_a_member_reads_the_files_beside_it_in_the_archive(run, tmp_path):
    """``info pak0.pak:progs/m.md5mesh``: the anim, the MDL and the .lmp skin come out of the archive with it."""
    if not (MDL.is_file() and (DOOR / "mesh.md5mesh").is_file()):
        pytest.skip("corpus files not found")
    from support.archive_builders import pack_bytes
    text = re.sub(rb'shader "[^"]*"', b'shader "m"', (DOOR / "mesh.md5mesh").read_bytes())
    archive = tmp_path / "pak0.pak"
    archive.write_bytes(pack_bytes([("progs/m.md5mesh", text), ("progs/m.md5anim", (DOOR / "open.md5anim").read_bytes()),
                                    ("progs/m.mdl", MDL.read_bytes()),
                                    ("progs/m_00_00.lmp", bytes([1, 0, 0, 0, 1, 0, 0, 0, 7]))]))
    out = run("info", f"{archive}:progs/m.md5mesh", block_bpy=True).stdout
    assert "anim (m.md5anim): 12 frames at 24 fps" in out, out
    assert "the anim has 12 frames, m.mdl 67" in out
    assert "m_00_00.lmp: found" in out and "MISSING" not in out


def test_convert_takes_a_mesh_with_its_anim_to_glb(run, tmp_path):
    """``convert door.md5mesh --to glb``: a skinned glTF with the mesh's joints and the anim of its name."""
    pytest.importorskip("bpy", reason="convert runs the operators in the bpy wheel")
    if not (DOOR / "mesh.md5mesh").is_file():
        pytest.skip("corpus door1 not found")
    from support.glb import glb_json
    shutil.copy(DOOR / "mesh.md5mesh", tmp_path / "door.md5mesh")
    shutil.copy(DOOR / "open.md5anim", tmp_path / "door.md5anim")
    result = run("convert", tmp_path / "door.md5mesh", "--to", "glb", "-o", tmp_path / "out")
    assert result.returncode == 0, result.stdout + result.stderr
    gltf = glb_json(tmp_path / "out" / "door.glb")
    joints = int(re.search(r"numJoints\s+(\d+)", (DOOR / "mesh.md5mesh").read_text("latin-1")).group(1))
    assert [len(skin["joints"]) for skin in gltf["skins"]] == [joints]
    assert [a["name"] for a in gltf["animations"]] == ["door"]
