"""``convert --enhanced``: a skeletal input (the corpus's MilkShape zombie, 14 joints) converted to MDL
gives progs/zombie.mdl with its MD5 twin and .lmp skin beside it, frame for frame (frame k of the MDL
within its step of the md5 skinned at frame k by the test's own skinning, md5_rig); an input without an
armature fails with our message and writes nothing."""
from __future__ import annotations

import numpy as np
import pytest
from support.environment import corpus_files, needs_bpy
from support.md5_rig import frame_skeleton, skinned

from formats.images.lmp import read_lmp
from formats.md5.anim import read_md5anim
from formats.md5.mesh import read_md5mesh
from formats.mdl.codec import parse_mdl

ZOMBIE = corpus_files("ms3d/sge/zombie.ms3d")
MD2 = corpus_files("md2/*/tris.md2")


@pytest.mark.skipif(not ZOMBIE, reason="corpus ms3d/sge/zombie.ms3d not found")
def test_convert_enhanced_writes_the_quake_layout(run, tmp_path):
    needs_bpy()
    result = run("convert", ZOMBIE[0], "--to", "mdl", "-o", tmp_path / "progs", "--enhanced", "--target", "modern")
    assert result.returncode == 0, result.stdout + result.stderr
    progs = tmp_path / "progs"
    assert sorted(p.name for p in progs.iterdir()) == ["zombie.md5anim", "zombie.md5mesh", "zombie.mdl",
                                                        "zombie_00_00.lmp"]
    mdl = parse_mdl((progs / "zombie.mdl").read_bytes())
    mesh = read_md5mesh((progs / "zombie.md5mesh").read_bytes())
    anim = read_md5anim((progs / "zombie.md5anim").read_bytes())
    assert anim.num_frames == len(mdl.frames) > 1
    assert np.array_equal(read_lmp((progs / "zombie_00_00.lmp").read_bytes()), mdl.skins[0].images[0])
    classic = mdl.pose_verts.astype(np.float64) * mdl.scale + mdl.translate
    step = float(np.max(mdl.scale))
    frames = range(0, anim.num_frames, 7)
    md5 = []
    for k in frames:
        pos, quat = frame_skeleton(anim, k)
        md5.append(np.concatenate([skinned(p, pos, quat) for p in mesh.meshes]))
    # the MDL vertex of each md5 vertex: nearest over all the frames compared (fingers touch in some)
    distance = sum(np.linalg.norm(m[:, None] - classic[k][None], axis=-1) for m, k in zip(md5, frames))
    pair = distance.argmin(axis=1)
    for m, k in zip(md5, frames):
        assert np.abs(m - classic[k][pair]).max() <= step / 2 + 1e-3, k


@pytest.mark.skipif(not MD2, reason="corpus md2 not found")
def test_convert_enhanced_without_armature_fails_and_writes_nothing(run, tmp_path):
    needs_bpy()
    result = run("convert", MD2[0], "--to", "mdl", "-o", tmp_path / "out", "--enhanced")
    assert result.returncode != 0
    assert "Enhanced Model: " in result.stdout + result.stderr and "MD5 is skeletal" in result.stdout + result.stderr
    assert not (tmp_path / "out").exists() or list((tmp_path / "out").rglob("*")) == []


@pytest.mark.skipif(not ZOMBIE, reason="corpus ms3d/sge/zombie.ms3d not found")
def test_convert_to_md5_writes_md5mesh_and_md5anim(run, tmp_path):
    needs_bpy()
    result = run("convert", ZOMBIE[0], "--to", "md5", "-o", tmp_path / "out")
    assert result.returncode == 0, result.stdout + result.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["zombie.md5anim", "zombie.md5mesh"]
    mesh = read_md5mesh((tmp_path / "out" / "zombie.md5mesh").read_bytes())
    anim = read_md5anim((tmp_path / "out" / "zombie.md5anim").read_bytes())
    assert mesh.joint_names == anim.joint_names and anim.num_frames > 1
