"""The Quake II remaster's ``md5/tris.md5scale`` applied on import as Q2PRO applies it: the pair and its
scales built in the test, Blender's evaluated mesh at every anim frame equal to positions worked out by
hand (tests/support/md5_scale_model.py); a broken scale file is reported and the anim still imports."""
from __future__ import annotations

import json

import numpy as np
from support.blender_helpers import evaluated_positions
from support.md5_rig import decoded, frame_skeleton, skinned
from support.md5_scale_model import MESH, SCALED_POSITIONS, SCALES, anim_text


def _layout(tmp_path, scale_text: bytes | None):
    folder = tmp_path / "models" / "m" / "md5"
    folder.mkdir(parents=True)
    (folder / "tris.md5mesh").write_bytes(MESH)
    (folder / "tris.md5anim").write_bytes(anim_text())
    if scale_text is not None:
        (folder / "tris.md5scale").write_bytes(scale_text)
    return folder / "tris.md5mesh"


def _frames(bpy):
    root = next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")
    block = next(o for o in root.children if o.type == "MESH")
    out = []
    for k in range(3):
        bpy.context.scene.frame_set(root.classic_model.frame_offset + k)
        local = evaluated_positions(bpy, block).astype(np.float64)
        world = np.array(block.matrix_world)
        out.append(local @ world[:3, :3].T + world[:3, 3])
    return np.array(out)


def test_md5scale_moves_the_mesh_as_q2pro_draws_it(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    path = _layout(tmp_path, json.dumps(SCALES).encode())
    assert bpy.ops.import_scene.md5(filepath=str(path)) == {"FINISHED"}
    np.testing.assert_allclose(_frames(bpy), SCALED_POSITIONS, atol=1e-5)
    assert "joint scales from tris.md5scale applied" in capfd.readouterr().out


def test_broken_md5scale_is_reported_and_ignored(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    path = _layout(tmp_path, b"{ not json")
    assert bpy.ops.import_scene.md5(filepath=str(path)) == {"FINISHED"}
    unscaled = [[[1, 0, 0], [1, 0, 2], [1, 0, 2]], [[1, 0, 0], [0, 1, 2], [0, 1, 2]],
                [[1, 0, 0], [0, 1, 2], [0, 1, 2]]]
    np.testing.assert_allclose(_frames(bpy), unscaled, atol=1e-5)
    assert "tris.md5scale: not valid JSON" in capfd.readouterr().out


def test_imported_scales_export_back_to_what_q2pro_draws(bpy_scene, tmp_path):
    """Imported with its .md5scale and exported again: the new pair and scales, skinned by the test's own
    MD5 skinning (tests/support/md5_rig.py), are the hand-worked positions at every frame."""
    bpy = bpy_scene
    path = _layout(tmp_path, json.dumps(SCALES).encode())
    assert bpy.ops.import_scene.md5(filepath=str(path)) == {"FINISHED"}
    root = next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")
    block = next(o for o in root.children if o.type == "MESH")
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = root.classic_model.frame_offset, root.classic_model.frame_offset + 2
    out = tmp_path / "again" / "tris.md5mesh"
    out.parent.mkdir()
    for obj in bpy.context.scene.objects:
        obj.select_set(obj in (root, block))
    assert bpy.ops.export_scene.md5(filepath=str(out), frame_source="TIMELINE", frame_rate="SCENE") == {"FINISHED"}
    mesh, anim = decoded(out)
    scales = np.ones((anim.num_frames, anim.num_joints))
    for name, frames in json.loads(out.with_suffix(".md5scale").read_text()).items():
        for frame, value in frames.items():
            scales[int(frame), anim.joint_names.index(name)] = value
    got = [np.concatenate([skinned(p, *frame_skeleton(anim, k), scales[k]) for p in mesh.meshes])
           for k in range(anim.num_frames)]
    np.testing.assert_allclose(got, SCALED_POSITIONS, atol=1e-5)
