"""A rig made in Blender (tests/support/iqm_rig.py: 4 bones, ``arm`` and ``hand`` disconnected, a constraint
and a driver on ``hand``, a skinned column, actions ``walk`` over 9 scene frames and ``wave`` over 7) exported from
one scene through both operators: ``export_scene.iqm`` (defaults: every action an anim at the scene's rate) and
``export_scene.md5`` with *Frames: Actions* and *Frame Rate: Every Frame* (every action, one after another, in the
one ``.md5anim`` a model made in Blender gets, at the scene's rate). Both files are decoded by the codecs; the
joints are composed by the tests' own code (``iqm_world``, ``frame_skeleton``) and compared with each other and
with Blender's evaluated pose bones at every frame, each within its file's precision (IQM: its 16-bit
quantisation; MD5: six decimals).

What the MD5 side cannot hold: the anims' names and their boundaries. A Blender-made rig's actions go into one
``.md5anim`` named after the mesh (exporters/md5/anim_files.py), so the test finds each action's frames by its
place in the list, as the IQM anims give them."""
from __future__ import annotations

import numpy as np
from support.actions import select_only
from support.iqm_rig import BONES, WALK, WAVE, blender_frames, iqm_world, joint_tolerance, rig_scene
from support.md5_rig import decoded, frame_skeleton

from formats.iqm.animation import anim_frames, bind_pose, frame_poses
from formats.iqm.codec import read_iqm

SCENE_FPS = 24.0
MD5_STEP = 1e-6                         # six decimals: half a unit of the last one, twice over


def _quat_matrix(q: np.ndarray) -> np.ndarray:
    """(..., 3, 3) rotation of unit quaternions w x y z."""
    w, x, y, z = np.moveaxis(q / np.linalg.norm(q, axis=-1, keepdims=True), -1, 0)
    return np.stack([np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
                     np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
                     np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1)], -2)


def _md5_world(anim) -> np.ndarray:
    """(F, J, 4, 4) world matrices of every frame of a decoded .md5anim."""
    out = np.zeros((anim.num_frames, anim.num_joints, 4, 4))
    for k in range(anim.num_frames):
        positions, quats = frame_skeleton(anim, k)
        out[k, :, :3, :3] = _quat_matrix(quats)
        out[k, :, :3, 3] = positions
        out[k, :, 3, 3] = 1
    return out


def test_a_rig_made_in_blender_goes_to_iqm_and_md5_with_the_same_joints_and_poses(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig, actions = rig_scene(bpy)
    select_only(bpy, [rig, obj])
    assert bpy.ops.export_scene.iqm(filepath=str(tmp_path / "rig.iqm")) == {"FINISHED"}
    select_only(bpy, [rig, obj])
    assert bpy.ops.export_scene.md5(filepath=str(tmp_path / "rig.md5mesh"), frame_source="ACTIONS",
                                    frame_rate="SCENE") == {"FINISHED"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rig.iqm", "rig.md5anim", "rig.md5mesh"]
    iqm = read_iqm((tmp_path / "rig.iqm").read_bytes())
    mesh, anim = decoded(tmp_path / "rig.md5mesh")

    # the same joints: names, parents, order (parents first, as the armature's bones)
    parents, *_ = bind_pose(iqm)
    assert iqm.joint_names == list(mesh.joint_names) == list(anim.joint_names) == list(BONES)
    assert list(parents) == [int(p) for p in mesh.joint_parents] == [int(p) for p in anim.joint_parents] \
        == [-1, 0, 1, 2]
    # the same anims: each action's frames at the scene's rate, one after another in the .md5anim
    spans = {"walk": WALK, "wave": WAVE}
    counts = [last - first + 1 for first, last in spans.values()]
    assert iqm.anim_names == list(spans)
    assert [int(n) for n in iqm.anims["num_frames"]] == counts
    assert [float(r) for r in iqm.anims["framerate"]] == [SCENE_FPS] * 2 == [float(anim.frame_rate)] * 2
    assert anim.num_frames == sum(counts)

    # at every frame: the IQM's joints, the MD5's and Blender's pose bones
    iqm_worlds = iqm_world(parents, *frame_poses(iqm))
    md5_worlds = _md5_world(anim)
    md5_first = 0
    for index, (name, (first, last)) in enumerate(spans.items()):
        blender, _ = blender_frames(bpy, rig, obj, actions[name], range(first, last + 1))
        from_iqm = iqm_worlds[list(anim_frames(iqm, index))]
        from_md5 = md5_worlds[md5_first:md5_first + len(blender)]
        md5_first += len(blender)
        iqm_tolerance = joint_tolerance(iqm, blender)
        extent = 1.0 + float(np.abs(blender[..., :3, 3]).max())
        md5_tolerance = len(BONES) * (MD5_STEP + 4 * MD5_STEP * extent) + 1e-5
        assert np.abs(from_iqm - blender).max() <= iqm_tolerance, name
        assert np.abs(from_md5 - blender).max() <= md5_tolerance, name
        assert np.abs(from_iqm - from_md5).max() <= iqm_tolerance + md5_tolerance, name
        # the poses move: a file holding the rest pose, or another action's frames, would not pass
        assert np.abs(blender - blender[:1]).max() > 100 * (iqm_tolerance + md5_tolerance), name
