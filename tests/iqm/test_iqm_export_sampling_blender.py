"""While File > Export > IQM steps the timeline to read the armature's pose, the exported mesh is not skinned
(its Armature modifier that uses the armature is off: ``exporters/armature_rig.py`` ``skinning_off``), and
is again after: a ``frame_change_post`` handler reads Blender's evaluated mesh at every frame the export
sets (the rig of tests/support/iqm_rig.py, ``walk`` playing at frame 5 before the export). The joints are
still Blender's pose at every frame (tests/iqm/test_iqm_export_operator_blender.py compares them)."""
from __future__ import annotations

import numpy as np
from support.actions import select_only
from support.iqm_rig import rig_scene

from formats.iqm.codec import read_iqm


def _evaluated(obj, depsgraph) -> np.ndarray:
    evaluated = obj.evaluated_get(depsgraph)
    mesh = evaluated.to_mesh()
    co = np.empty(len(mesh.vertices) * 3, np.float32)
    mesh.vertices.foreach_get("co", co)
    evaluated.to_mesh_clear()
    return co.reshape(-1, 3)


def test_the_mesh_is_not_skinned_while_the_export_steps_the_frames_and_is_after(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig, actions = rig_scene(bpy)
    unskinned = np.empty(len(obj.data.vertices) * 3, np.float32)
    obj.data.vertices.foreach_get("co", unskinned)
    unskinned = unskinned.reshape(-1, 3)
    rig.animation_data.action = actions["walk"]
    bpy.context.scene.frame_set(5)
    shown = _evaluated(obj, bpy.context.evaluated_depsgraph_get())
    assert np.abs(shown - unskinned).max() > 0.1             # the user sees the mesh skinned at frame 5
    seen = []

    def record(scene, depsgraph):
        seen.append((scene.frame_current, _evaluated(obj, depsgraph)))
    bpy.app.handlers.frame_change_post.append(record)
    try:
        select_only(bpy, [rig, obj])
        assert bpy.ops.export_scene.iqm(filepath=str(tmp_path / "rig.iqm")) == {"FINISHED"}
    finally:
        bpy.app.handlers.frame_change_post.remove(record)
    model = read_iqm((tmp_path / "rig.iqm").read_bytes())
    assert model.anim_names == ["walk", "wave"] and model.num_frames == 16
    # every frame sampled: the mesh as its vertices are, unskinned; then frame 5 again, skinned as before
    assert len(seen) == model.num_frames + 1
    assert [frame for frame, _ in seen[:-1]] == list(range(1, 10)) + list(range(20, 27))
    assert max(float(np.abs(co - unskinned).max()) for _, co in seen[:-1]) == 0.0
    assert seen[-1][0] == 5
    np.testing.assert_array_equal(seen[-1][1], shown)
    assert [m.show_viewport for m in obj.modifiers] == [True]
    np.testing.assert_array_equal(_evaluated(obj, bpy.context.evaluated_depsgraph_get()), shown)
