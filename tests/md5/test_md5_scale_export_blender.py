"""Bones scaled uniformly in the animation: the MD5 export writes Q2PRO's ``.md5scale`` beside the anim
(the test reads it with json, skins the files with the test's own MD5 skinning, where a joint's scale
multiplies its weights' offsets, and compares with Blender's evaluated mesh at every frame); the Quake II
Enhanced Model writes ``md5/tris.md5scale``; the Quake one warns (its ports read no scales); an old
``.md5scale`` left beside an anim without scales is reported; no scale, no file."""
from __future__ import annotations

import json

import numpy as np
from support.actions import export
from support.md5_rig import TOLERANCE, bind_map, decoded, frame_skeleton, rigged, skinned, world_mesh


def scaled_rig(bpy):
    """The rigged column, timeline frames 1-4: ``mid`` turning and growing to 1.6, ``top`` shrinking to 0.5."""
    obj, rig, _ = rigged(bpy, name="thing", with_actions=False)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 4
    for f in range(1, 5):
        t = (f - 1) / 3
        mid, top = rig.pose.bones["mid"], rig.pose.bones["top"]
        mid.rotation_mode = "XYZ"
        mid.rotation_euler = (0.3 * t, 0.0, 0.2 * t)
        mid.scale = (1 + 0.6 * t,) * 3
        top.scale = (1 - 0.5 * t,) * 3
        for bone in (mid, top):
            bone.keyframe_insert("rotation_euler", frame=f)
            bone.keyframe_insert("scale", frame=f)
    return obj, rig


def test_uniform_bone_scales_go_to_md5scale_and_skin_as_blender_shows(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig = scaled_rig(bpy)
    path = tmp_path / "thing.md5mesh"
    export(bpy, "md5", [obj], path, frame_source="TIMELINE")
    mesh, anim = decoded(path)
    table = json.loads(path.with_suffix(".md5scale").read_text())
    assert set(table) == {"mid", "top"} and anim.num_frames == 4
    scales = np.ones((4, 3))
    for name, frames in table.items():
        assert "scale_positions" not in frames
        for frame, value in frames.items():
            scales[int(frame), anim.joint_names.index(name)] = value
    # mid's own scale, and top's: its parent's 1.6 times its own (Blender's scale is inherited)
    t = np.arange(4) / 3
    np.testing.assert_allclose(scales[:, 1], 1 + 0.6 * t, atol=1e-5)
    np.testing.assert_allclose(scales[:, 2], (1 + 0.6 * t) * (1 - 0.5 * t), atol=1e-5)
    order = bind_map(bpy, obj, mesh)
    for k in range(anim.num_frames):
        bpy.context.scene.frame_set(1 + k)
        pos, quat = frame_skeleton(anim, k)
        ours = np.concatenate([skinned(p, pos, quat, scales[k]) for p in mesh.meshes])
        worst = np.abs(ours - world_mesh(bpy, obj)[order]).max()
        assert worst < TOLERANCE, (k, worst)


def test_enhanced_models_quake2_writes_the_scales_quake_warns(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    obj, _ = scaled_rig(bpy)
    models = tmp_path / "baseq2" / "models" / "m"
    models.mkdir(parents=True)
    export(bpy, "md2", [obj], models / "tris.md2", frame_source="TIMELINE", enhanced=True)
    assert set(json.loads((models / "md5" / "tris.md5scale").read_text())) == {"mid", "top"}
    capfd.readouterr()
    progs = tmp_path / "progs"
    progs.mkdir()
    export(bpy, "mdl", [obj], progs / "m.mdl", frame_source="TIMELINE", enhanced=True)
    assert not list(progs.glob("*.md5scale"))
    out = capfd.readouterr().out
    assert "bones scale in the animation, which only Q2PRO reads (.md5scale)" in out
    assert "2 bones scale in 3 frames" in out and "go to a .md5scale" not in out     # it writes none


def test_no_scale_writes_no_file_and_an_old_one_is_reported(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    obj, _, _ = rigged(bpy, name="thing")
    path = tmp_path / "thing.md5mesh"
    export(bpy, "md5", [obj], path, frame_source="ACTIONS", frame_rate="GAME")
    assert not path.with_suffix(".md5scale").exists()
    assert "md5scale" not in capfd.readouterr().out
    path.with_suffix(".md5scale").write_text('{"mid": {"0": 2}}')
    export(bpy, "md5", [obj], path, frame_source="ACTIONS", frame_rate="GAME")
    assert "thing.md5scale lies beside the anim from before: Q2PRO applies its scales" in capfd.readouterr().out
