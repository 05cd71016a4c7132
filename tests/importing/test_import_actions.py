"""Import with one action per animation (issue 10), and Quake II player models with their weapons."""
from __future__ import annotations

import numpy as np
import pytest
from support.blender_helpers import evaluated_positions
from support.md2_synthetic import grid_model
from support.mdl_models import mixed_model

from formats.animations import group_animations
from formats.md2.codec import parse_md2, serialize_md2
from formats.mdl.codec import serialize_mdl


def import_file(bpy, op, path, **options):
    assert getattr(bpy.ops.import_scene, op)(filepath=str(path), **options) == {"FINISHED"}
    return bpy.context.view_layer.objects.active


def active_action(obj):
    return obj.data.shape_keys.animation_data.action


def test_md2_animations_become_actions(bpy_scene, tmp_path):
    bpy = bpy_scene
    model = grid_model(frames=9)
    (tmp_path / "g.md2").write_bytes(serialize_md2(model))
    obj = import_file(bpy, "md2", tmp_path / "g.md2", animations="ACTIONS")
    animations = group_animations(model.frame_names)
    items = obj.classic_model.animations
    assert [i.name for i in items] == [a.name for a in animations] == ["stand", "run"]
    assert all(i.action is not None and i.action.use_fake_user for i in items)
    assert active_action(obj) == items[0].action
    scene = bpy.context.scene
    positions = model.positions()
    for index, anim in enumerate(animations):
        obj.classic_model.active_animation = index           # what clicking in the sidebar list does
        assert active_action(obj) == items[index].action
        assert (scene.frame_start, scene.frame_end) == (1, anim.frames)
        for j in range(anim.frames):
            scene.frame_set(1 + j)
            np.testing.assert_allclose(evaluated_positions(bpy, obj), positions[anim.first + j], atol=1e-5)
    # the actions survive a save and reload (fake users)
    bpy.ops.wm.save_as_mainfile(filepath=str(tmp_path / "a.blend"))
    bpy.ops.wm.open_mainfile(filepath=str(tmp_path / "a.blend"))
    assert {"stand", "run"} <= {a.name for a in bpy.data.actions}


def test_mdl_frame_groups_become_one_action_each(bpy_scene, tmp_path):
    bpy = bpy_scene
    (tmp_path / "m.mdl").write_bytes(serialize_mdl(mixed_model()))
    obj = import_file(bpy, "mdl", tmp_path / "m.mdl", animations="ACTIONS")
    items = obj.classic_model.animations
    assert [(i.name, i.frame_end - i.frame_start + 1) for i in items] == \
        [("candle", 1), ("flame", 1), ("candle", 1), ("lava", 3), ("lava", 2)]
    assert len({i.action.name for i in items}) == 5             # Blender's unique names; the list maps them


def player_folder(tmp_path, frames: int = 6):
    folder = tmp_path / "players" / "zed"
    folder.mkdir(parents=True)
    body = grid_model(frames=frames)
    (folder / "tris.md2").write_bytes(serialize_md2(body))
    for name, seed in (("weapon.md2", 2), ("w_blaster.md2", 3)):
        (folder / name).write_bytes(serialize_md2(grid_model(nx=2, ny=2, frames=frames, seed=seed)))
    (folder / "other.md2").write_bytes(serialize_md2(grid_model(nx=2, ny=2, frames=2)))
    return folder


@pytest.mark.parametrize("mode", ["TIMELINE", "ACTIONS"])
def test_a_player_brings_its_weapons(bpy_scene, tmp_path, mode):
    bpy = bpy_scene
    folder = player_folder(tmp_path)
    player = import_file(bpy, "md2", folder / "tris.md2", animations=mode)
    assert player.name == "tris"
    weapons = sorted(c.name for c in player.children)
    assert weapons == ["w_blaster", "weapon"]
    assert list(bpy.context.selected_objects) == [player]     # exporting the selection writes the body
    scene = bpy.context.scene
    if mode == "ACTIONS":
        player.classic_model.active_animation = 1
        for child in player.children:
            assert active_action(child) == child.classic_model.animations["run"].action
        assert (scene.frame_start, scene.frame_end) == (1, 3)
    weapon = player.children[0]
    expected = parse_md2((folder / f"{weapon.name}.md2").read_bytes()).positions()
    scene.frame_set(2)
    frame = 1 if mode == "TIMELINE" else 4                   # ACTIONS: "run" (file frames 3-5) is active
    np.testing.assert_allclose(evaluated_positions(bpy, weapon), expected[frame], atol=1e-5)


def test_weapons_can_be_left_out_and_are_not_imported_twice(bpy_scene, tmp_path):
    bpy = bpy_scene
    folder = player_folder(tmp_path)
    import_file(bpy, "md2", folder / "tris.md2", load_weapons=False)
    assert sorted(o.name for o in bpy.data.objects) == ["tris"]
    bpy.ops.wm.read_homefile(use_empty=True)
    assert bpy.ops.import_scene.md2(directory=str(folder), files=[{"name": "tris.md2"}, {"name": "weapon.md2"}]) \
        == {"FINISHED"}
    assert sorted(o.name for o in bpy.data.objects) == ["tris", "w_blaster", "weapon"]


@pytest.mark.parametrize("fmt", ["md2", "mdl"])
def test_an_untouched_import_as_actions_exports_the_same_bytes(bpy_scene, tmp_path, fmt):
    bpy = bpy_scene
    data = serialize_md2(grid_model(frames=9)) if fmt == "md2" else serialize_mdl(mixed_model())
    (tmp_path / f"in.{fmt}").write_bytes(data)
    obj = import_file(bpy, fmt, tmp_path / f"in.{fmt}", animations="ACTIONS")
    obj.classic_model.active_animation = 1                    # whichever action is showing
    for other in bpy.context.view_layer.objects:
        other.select_set(other == obj)
    for frame_source in ("TIMELINE", "ACTIONS"):
        out = tmp_path / f"out_{frame_source}.{fmt}"
        assert getattr(bpy.ops.export_scene, fmt)(filepath=str(out), frame_source=frame_source) == {"FINISHED"}
        assert out.read_bytes() == data, frame_source


@pytest.mark.parametrize("mode", ["TIMELINE", "ACTIONS"])
def test_a_quake2_player_shows_its_20_animations_and_writes_back_the_same_bytes(bpy_scene, tmp_path, mode):
    """Issue 29: pain101..pain304 and death101..death308 are pain1..3 and death1..3 (m_player.h), in
    the sidebar list, the markers and the actions; the untouched player exports as it was."""
    from support.players import TABLE, m_player_names
    bpy = bpy_scene
    model = grid_model(nx=3, ny=2, frames=198)
    model.frame_names = m_player_names()
    data = serialize_md2(model)
    (tmp_path / "tris.md2").write_bytes(data)
    obj = import_file(bpy, "md2", tmp_path / "tris.md2", animations=mode)
    items = obj.classic_model.animations
    assert [(i.name, i.frame_end - i.frame_start + 1) for i in items] == TABLE
    starts = [sum(n for _, n in TABLE[:k]) for k in range(len(TABLE))]
    if mode == "TIMELINE":
        markers = sorted((m.frame, m.name) for m in bpy.context.scene.timeline_markers)
        assert markers == [(1 + s, name) for s, (name, _) in zip(starts, TABLE)]
    else:
        assert [i.action.name for i in items] == [name for name, _ in TABLE]
    for other in bpy.context.view_layer.objects:
        other.select_set(other == obj)
    assert bpy.ops.export_scene.md2(filepath=str(tmp_path / "out.md2")) == {"FINISHED"}
    assert (tmp_path / "out.md2").read_bytes() == data
