"""A Quake II player folder whose weapon models are longer and shorter than the body (issue 19: a
229-frame ``tris.md2`` beside a 348-frame ``w_none.md2``): importing the player with its weapons
changes nothing the body's export writes, and each weapon's export writes its own frames, byte for
byte. Models built here."""
from __future__ import annotations

import numpy as np
import pytest

from formats.md2.codec import parse_md2, serialize_md2
from md2_synthetic import grid_model
from test_md2_blender import export_md2, import_md2

pytestmark = pytest.mark.blender

FRAMES = {"tris.md2": 6, "w_long.md2": 11, "weapon.md2": 3}


@pytest.fixture
def player(tmp_path):
    folder = tmp_path / "players" / "grunt"
    folder.mkdir(parents=True)
    data = {}
    for seed, (name, frames) in enumerate(FRAMES.items(), 1):
        model = grid_model(nx=3 + seed, frames=frames, seed=seed)
        data[name] = serialize_md2(model)
        (folder / name).write_bytes(data[name])
    return folder, data


def test_body_and_each_weapon_export_their_own_frames(bpy_scene, tmp_path, player):
    bpy = bpy_scene
    folder, data = player
    body = import_md2(bpy, folder / "tris.md2")
    weapons = {o.name: o for o in body.children}
    assert sorted(weapons) == ["w_long", "weapon"]
    scene = bpy.context.scene
    assert scene.frame_end - scene.frame_start + 1 == max(FRAMES.values())    # the range covers the longest
    assert export_md2(bpy, body, tmp_path / "out" / "tris.md2") == data["tris.md2"]
    for name, obj in weapons.items():
        assert export_md2(bpy, obj, tmp_path / "out" / f"{name}.md2") == data[f"{name}.md2"], name
    assert export_md2(bpy, body, tmp_path / "out" / "keys.md2", frame_source="SHAPE_KEYS") == data["tris.md2"]


def test_a_retimed_body_still_follows_the_scene_range(bpy_scene, tmp_path, player):
    """Once the body's own frames are moved on the timeline, the scene range decides again."""
    bpy = bpy_scene
    folder, data = player
    body = import_md2(bpy, folder / "tris.md2")
    action = body.data.shape_keys.animation_data.action
    fcurves = action.fcurves if hasattr(action, "fcurves") else None
    if fcurves is None:
        from bpy_extras import anim_utils
        fcurves = anim_utils.action_get_channelbag_for_slot(
            action, body.data.shape_keys.animation_data.action_slot).fcurves
    for fcurve in fcurves:                          # play every frame one scene frame later
        for point in fcurve.keyframe_points:
            point.co.x += 1
            point.handle_left.x += 1
            point.handle_right.x += 1
    out = parse_md2(export_md2(bpy, body, tmp_path / "out" / "tris.md2"))
    assert out.num_frames == max(FRAMES.values())
    original = parse_md2(data["tris.md2"])
    np.testing.assert_array_equal(out.frame_verts[1:FRAMES["tris.md2"] + 1], original.frame_verts)


def test_an_mdl_beside_a_longer_md2_exports_its_own_frames(bpy_scene, tmp_path, player):
    """The rule is the Timeline export's, not the player import's: an MDL sharing the scene with a
    longer model writes its own poses too."""
    from formats.mdl.codec import serialize_mdl
    from test_frame_table_mdl import mixed_model
    from test_mdl_blender import export_mdl, import_mdl
    bpy = bpy_scene
    folder, data = player
    import_md2(bpy, folder / "w_long.md2")
    mdl = serialize_mdl(mixed_model())
    (tmp_path / "m.mdl").write_bytes(mdl)
    obj = import_mdl(bpy, tmp_path / "m.mdl")
    scene = bpy.context.scene
    assert scene.frame_end - scene.frame_start + 1 == FRAMES["w_long.md2"] > len(obj.classic_model.frames)
    assert export_mdl(bpy, obj, tmp_path / "out.mdl") == mdl
