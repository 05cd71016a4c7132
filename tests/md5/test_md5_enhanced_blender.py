"""*Enhanced Model* on the MDL and MD2 exporters: one export writes the classic file and its MD5 twin in
the layout the ports load (ironwail loadMd5Replacement: progs/m.md5mesh, m.md5anim, m_00_00.lmp beside
progs/m.mdl; Q2PRO MOD_LoadMD5: models/m/md5/tris.md5mesh and md5anim, the skins under md5/). A monster
rigged in the test with three actions: the anim has the classic file's frame count, and the md5 skinned
by the test's own MD5 skinning (md5_rig) at frame k is the classic frame k within the classic file's
step; the .lmp skins are the MDL's skins; without an armature nothing is written."""
from __future__ import annotations

import numpy as np
import pytest
from support.actions import export
from support.md5_rig import frame_skeleton, rigged, skinned

from formats.images.lmp import read_lmp
from formats.md2.codec import parse_md2
from formats.md5.anim import read_md5anim
from formats.md5.mesh import read_md5mesh
from formats.mdl.codec import parse_mdl


def monster(bpy):
    """The rigged column with a third action ``pain`` (frames 20-23); each of its two materials shows a
    32 x 32 image (the classic exports pack them into one skin)."""
    obj, rig, actions = rigged(bpy, name="m")
    rng = np.random.default_rng(5)
    for material in obj.data.materials:
        image = bpy.data.images.new(material.name, 32, 32, alpha=True)
        image.pixels.foreach_set(np.concatenate([rng.random((32 * 32, 3)), np.ones((32 * 32, 1))], 1)
                                 .astype(np.float32).ravel())
        if bpy.app.version < (5, 0, 0):
            material.use_nodes = True
        material.node_tree.nodes.new("ShaderNodeTexImage").image = image
    anim = rig.animation_data
    for f in range(20, 24):
        rig.pose.bones["top"].rotation_euler = (0.0, 0.0, 0.3 * (f - 20))
        rig.pose.bones["top"].keyframe_insert("rotation_euler", frame=f)
    anim.action.name = "pain"
    anim.action.use_fake_user = True
    anim.action = None
    rig.pose.bones["top"].rotation_euler = (0, 0, 0)
    return obj, rig


def skinned_frames(mesh, anim) -> np.ndarray:
    out = []
    for k in range(anim.num_frames):
        pos, quat = frame_skeleton(anim, k)
        out.append(np.concatenate([skinned(p, pos, quat) for p in mesh.meshes]))
    return np.array(out)


def assert_frames_match(md5_frames: np.ndarray, classic: np.ndarray, steps: np.ndarray) -> None:
    """Classic frame k within its step of md5 frame k, vertices paired by frame 0."""
    pair = np.linalg.norm(md5_frames[0][:, None] - classic[0][None], axis=-1).argmin(axis=1)
    for k in range(len(classic)):
        assert np.abs(md5_frames[k] - classic[k][pair]).max() <= steps[k] / 2 + 1e-4, k


def test_quake_enhanced_model_writes_mdl_md5_pair_and_lmp_skins(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig = monster(bpy)
    progs = tmp_path / "progs"
    progs.mkdir()
    export(bpy, "mdl", [obj], progs / "m.mdl", frame_source="ACTIONS", frame_rate="GAME", enhanced=True)
    assert sorted(p.name for p in progs.iterdir()) == ["m.md5anim", "m.md5mesh", "m.mdl", "m_00_00.lmp"]
    mdl = parse_mdl((progs / "m.mdl").read_bytes())
    mesh = read_md5mesh((progs / "m.md5mesh").read_bytes())
    anim = read_md5anim((progs / "m.md5anim").read_bytes())
    assert {p.shader for p in mesh.meshes} == {"m"}
    assert anim.num_frames == len(mdl.frames) == len(mdl.pose_verts) == 10
    assert mesh.joint_names == anim.joint_names
    lmp = read_lmp((progs / "m_00_00.lmp").read_bytes())
    assert np.array_equal(lmp, mdl.skins[0].images[0])
    # the md5's UVs are the MDL's (packed into its one skin): every md5 corner's texel is an MDL texel
    w, h = mdl.skin_width, mdl.skin_height
    texels = {(int(a), int(b)) for a, b in zip(mdl.s, mdl.t)}
    texels |= {(int(a) + w // 2, int(b)) for a, b, seam in zip(mdl.s, mdl.t, mdl.onseam) if seam}
    uv = np.concatenate([p.uv for p in mesh.meshes])
    md5_texels = {(int(a), int(b)) for a, b in np.rint(uv * [w, h] - 0.5)}
    assert md5_texels <= texels and len(md5_texels) > 20
    classic = mdl.pose_verts.astype(np.float64) * mdl.scale + mdl.translate
    assert_frames_match(skinned_frames(mesh, anim), classic, np.full(len(classic), np.max(mdl.scale)))


def test_quake2_enhanced_model_writes_md5_under_md5_folder(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig = monster(bpy)
    folder = tmp_path / "baseq2" / "models" / "m"
    folder.mkdir(parents=True)
    export(bpy, "md2", [obj], folder / "tris.md2", frame_source="ACTIONS", frame_rate="GAME", enhanced=True)
    md2 = parse_md2((folder / "tris.md2").read_bytes())
    mesh = read_md5mesh((folder / "md5" / "tris.md5mesh").read_bytes())
    anim = read_md5anim((folder / "md5" / "tris.md5anim").read_bytes())
    assert anim.num_frames == len(md2.frame_names) == 10
    for skin in md2.skins:                       # Q2PRO: the MD2's skin names with md5/ before the file name
        head, _, name = skin.rpartition("/")
        assert (tmp_path / "baseq2" / head / "md5" / name).read_bytes() == (tmp_path / "baseq2" / skin).read_bytes()
    classic = (md2.frame_verts.astype(np.float64) * md2.frame_scale[:, None].astype(np.float64)
               + md2.frame_translate[:, None])
    assert_frames_match(skinned_frames(mesh, anim), classic, md2.frame_scale.max(axis=1).astype(np.float64))


def test_enhanced_model_without_armature_writes_nothing(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig, _ = rigged(bpy, with_actions=False)
    obj.modifiers.clear()
    obj.parent = None
    with pytest.raises(RuntimeError, match="Enhanced Model: .*MD5 is skeletal"):
        export(bpy, "mdl", [obj], tmp_path / "m.mdl", enhanced=True)
    assert list(tmp_path.iterdir()) == []


def test_quake2_player_enhanced_model_twins_body_and_weapon(bpy_scene, tmp_path):
    """Q2PRO MOD_LoadMD5 builds <folder>/md5/<stem>.md5mesh for every MD2 registered, a player's too."""
    bpy = bpy_scene
    obj, rig = monster(bpy)
    for old, new in (("idle", "stand"), ("swing", "run"), ("pain", "pain1")):
        bpy.data.actions[old].name = new
    weapon_mesh = bpy.data.meshes.new("weapon")
    weapon_mesh.from_pydata([(0, 0, 0), (1, 0, 0), (0, 1, 0)], [], [(0, 1, 2)])
    weapon_mesh.uv_layers.new(name="UVMap")
    weapon = bpy.data.objects.new("weapon", weapon_mesh)
    bpy.context.scene.collection.objects.link(weapon)
    weapon.vertex_groups.new(name="top").add([0, 1, 2], 1.0, "REPLACE")      # held by the top bone
    weapon.modifiers.new("rig", "ARMATURE").object = rig
    folder = tmp_path / "baseq2" / "players" / "p"
    folder.mkdir(parents=True)
    export(bpy, "md2", [obj, weapon], folder / "tris.md2", frame_source="ACTIONS", frame_rate="GAME", player=True,
           enhanced=True, icons="NONE")
    md2 = parse_md2((folder / "tris.md2").read_bytes())
    anim = read_md5anim((folder / "md5" / "tris.md5anim").read_bytes())
    read_md5mesh((folder / "md5" / "tris.md5mesh").read_bytes())
    assert anim.num_frames == len(md2.frame_names)
    weapon_anim = read_md5anim((folder / "md5" / "weapon.md5anim").read_bytes())
    read_md5mesh((folder / "md5" / "weapon.md5mesh").read_bytes())
    assert weapon_anim.num_frames == len(parse_md2((folder / "weapon.md2").read_bytes()).frame_names) == anim.num_frames
