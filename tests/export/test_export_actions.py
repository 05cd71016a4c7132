"""MD2/MDL export with ``frame_source='ACTIONS'``: a model rigged in the test, its actions sampled one
after another, frames against the posed mesh read back independently."""
from __future__ import annotations

import time

import numpy as np
import pytest
from support.actions import assign, export, posed, rigged_model
from support.actions import select_only as _select_only
from support.blender_helpers import reported
from support.md2_synthetic import grid_model

from formats.md2.codec import parse_md2, serialize_md2
from formats.mdl.codec import parse_mdl


def test_two_actions_to_md2_match_the_posed_mesh(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig, actions = rigged_model(bpy, offset=(1.0, 2.0, 0.5))
    bpy.context.scene.frame_set(3)
    data = export(bpy, "md2", [obj], tmp_path / "rig.md2", frame_source="ACTIONS")
    model = parse_md2(data)
    # default order: action names sorted (no import animation list)
    assert model.frame_names == [f"attack{i:02d}" for i in range(1, 9)] + [f"walk{i:02d}" for i in range(1, 6)]
    expected = np.concatenate([posed(bpy, obj, rig, actions["attack"], range(10, 18)),
                               posed(bpy, obj, rig, actions["walk"], range(1, 6))])
    half_step = model.frame_scale[:, None, :].astype(np.float64) / 2 + 1e-5
    assert np.all(np.abs(model.positions() - expected) <= half_step)
    assert np.ptp(expected, axis=0).max() > 0.5          # the frames really differ


def test_two_actions_to_mdl_with_step(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig, actions = rigged_model(bpy)
    bpy.context.scene.classic_export_actions.clear()
    for name, ticked in (("walk", True), ("attack", True)):
        item = bpy.context.scene.classic_export_actions.add()
        item.name, item.export = name, ticked
    model = parse_mdl(export(bpy, "mdl", [obj], tmp_path / "rig.mdl", frame_source="ACTIONS", step=3))
    walk, attack = [1, 4, 5], [10, 13, 16, 17]          # every third frame, the last one always
    assert model.pose_names == [f"walk{i:02d}" for i in range(1, 4)] + [f"attack{i:02d}" for i in range(1, 5)]
    expected = np.concatenate([posed(bpy, obj, rig, actions["walk"], walk),
                               posed(bpy, obj, rig, actions["attack"], attack)])
    decoded = model.positions()[:, :len(obj.data.vertices)]
    assert np.all(np.abs(decoded - expected) <= np.asarray(model.scale, np.float64) / 2 + 1e-5)


def test_user_list_unticks_and_orders(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig, actions = rigged_model(bpy)
    scene = bpy.context.scene
    scene.classic_export_actions.clear()
    item = scene.classic_export_actions.add()
    item.name, item.export = "attack", False
    model = parse_md2(export(bpy, "md2", [obj], tmp_path / "walk.md2", frame_source="ACTIONS"))
    assert model.frame_names == [f"walk{i:02d}" for i in range(1, 6)]


def test_frame_name_limit_names_the_action(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig, actions = rigged_model(bpy)
    actions["walk"].name = "a_very_long_walk"
    path = tmp_path / "long.md2"
    _select_only(bpy, [obj])
    with pytest.raises(RuntimeError, match=r"limited to 15 characters: action 'a_very_long_walk' gives 'a_very_long_walk01' \(18\).*at most 13"):
        bpy.ops.export_scene.md2(filepath=str(path), frame_source="ACTIONS")
    assert not path.exists()
    assert rig.animation_data.action is None


def test_no_actions_is_a_clear_error(bpy_scene, tmp_path):
    bpy = bpy_scene
    bpy.ops.mesh.primitive_plane_add()
    obj = bpy.context.object
    with pytest.raises(RuntimeError, match="no action animates"):
        export(bpy, "md2", [obj], tmp_path / "plane.md2", frame_source="ACTIONS")


def _split_into_actions(bpy, obj) -> None:
    """What an import with one shape-key action per animation leaves: actions named after the
    animations, each playing its frames from scene frame 1 with linear keys (built here from the keys,
    independently)."""
    key = obj.data.shape_keys
    names = [b.name for b in key.key_blocks[1:]]
    offset = obj.classic_model.frame_offset
    for anim in obj.classic_model.animations:
        key.animation_data.action = None
        first, last = anim.frame_start - offset, anim.frame_end - offset
        for i in range(first, last + 1):
            block = key.key_blocks[names[i]]
            local = 1 + i - first
            for frame, value in ((local - 1, 0.0), (local, 1.0), (local + 1, 0.0)):
                block.value = value
                block.keyframe_insert("value", frame=frame)
        action = key.animation_data.action
        action.name, action.use_fake_user = anim.name, True
        curves = (action.layers[0].strips[0].channelbag(key.animation_data.action_slot).fcurves
                  if hasattr(action, "layers") and len(action.layers) else action.fcurves)
        for fcurve in curves:
            for point in fcurve.keyframe_points:
                point.interpolation = "LINEAR"
        action.use_frame_range = True
        action.frame_start, action.frame_end = 1, last - first + 1
    key.animation_data.action = None
    for block in key.key_blocks[1:]:
        block.value = 0.0
    assign(bpy, key, bpy.data.actions[obj.classic_model.animations[0].name])


def test_imported_actions_export_byte_for_byte_without_evaluating(bpy_scene, tmp_path):
    bpy = bpy_scene
    path = tmp_path / "grid.md2"
    source = serialize_md2(grid_model(frames=6))
    path.write_bytes(source)
    assert bpy.ops.import_scene.md2(filepath=str(path)) == {"FINISHED"}
    obj = bpy.context.view_layer.objects.active
    _split_into_actions(bpy, obj)
    _select_only(bpy, [obj])
    from importlib import import_module

    from tools.load_extension import enable_extension
    build = import_module(f"{enable_extension()}.exporters.md2.build")
    result = build.build_md2(bpy.context, [obj], build.Md2ExportOptions(frame_source="ACTIONS"))
    assert result.frames_evaluated == 0                   # every frame read from its shape key
    assert serialize_md2(result.model) == source
    assert export(bpy, "md2", [obj], tmp_path / "again.md2", frame_source="ACTIONS") == source


def weapon_on(bpy, rig, name: str = "weapon"):
    """A quad with UVs held by the rig's upper bone."""
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([(0.3, 0, 4), (0.9, 0, 4), (0.9, 0, 4.6), (0.3, 0, 4.6)], [], [(0, 1, 2, 3)])
    uv = mesh.uv_layers.new(name="UVMap")
    uv.uv.foreach_set("vector", [0.1, 0.1, 0.9, 0.1, 0.9, 0.9, 0.1, 0.9])
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    obj.vertex_groups.new(name="upper").add([0, 1, 2, 3], 1.0, "REPLACE")
    obj.modifiers.new("rig", "ARMATURE").object = rig
    return obj


def test_player_export_writes_body_and_weapon_with_equal_frames(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    body, rig, actions = rigged_model(bpy, name="marine")
    weapon = weapon_on(bpy, rig)
    _select_only(bpy, [body, weapon])
    assert bpy.ops.export_scene.md2(filepath=str(tmp_path / "anything.md2"), frame_source="ACTIONS",
                                    player=True, frame_rate="SCENE") == {"FINISHED"}
    out = capfd.readouterr().out
    assert sorted(p.name for p in tmp_path.glob("*.md2")) == ["tris.md2", "weapon.md2"]
    tris, gun = (parse_md2((tmp_path / name).read_bytes()) for name in ("tris.md2", "weapon.md2"))
    assert tris.frame_names == gun.frame_names == [f"attack{i:02d}" for i in range(1, 9)] + [
        f"walk{i:02d}" for i in range(1, 6)]
    assert (tris.num_vertices, gun.num_vertices) == (len(body.data.vertices), 4)
    expected = np.concatenate([posed(bpy, weapon, rig, actions["attack"], range(10, 18)),
                               posed(bpy, weapon, rig, actions["walk"], range(1, 6))])
    assert np.all(np.abs(gun.positions() - expected) <= gun.frame_scale[:, None, :] / 2 + 1e-5)
    # the export warns about the same deviations as check --profile q2-player, one line per kind; the
    # frame count and attack's place follow from the missing animations, so no line says them
    warned, messages = reported(out)
    assert "Quake II player: tris.md2: 19 animations missing: stand, run, pain1 and 16 more" in warned
    assert "Quake II player: tris.md2: animation 'stand' is missing (expected 40 frames at frames 0-39)" in messages
    assert not [m for m in messages if "13 frames" in m or "'attack' is at frames" in m]
    from importlib import import_module

    from tools.load_extension import enable_extension
    check = import_module(f"{enable_extension()}.cli.md2.player_check")
    deviations, errors = check.check_player(tmp_path, load_skins=False)
    warned = [m.removeprefix("Quake II player: ") for m in messages if m.startswith("Quake II player: ")]
    assert not errors and deviations == warned and len(warned) > 3


def test_player_export_needs_a_body(bpy_scene, tmp_path):
    bpy = bpy_scene
    body, rig, actions = rigged_model(bpy, name="w_blaster")
    with pytest.raises(RuntimeError, match="needs a body"):
        export(bpy, "md2", [body], tmp_path / "tris.md2", frame_source="ACTIONS", player=True)
    assert not any(tmp_path.iterdir())


def test_object_action_is_baked_and_other_objects_actions_left_out(bpy_scene, tmp_path):
    bpy = bpy_scene
    bpy.ops.mesh.primitive_cube_add()
    cube = bpy.context.object
    for frame, z in ((1, 0.0), (4, 3.0)):
        cube.location.z = z
        cube.keyframe_insert("location", frame=frame)
    cube.animation_data.action.name = "lift"
    cube.animation_data.action.use_fake_user = True
    cube.animation_data.action = None
    cube.location.z = 0.0
    bpy.ops.object.camera_add()
    camera = bpy.context.object
    camera.keyframe_insert("location", frame=1)
    camera.animation_data.action.name = "dolly"           # also resolves on the cube, but is the camera's
    model = parse_md2(export(bpy, "md2", [cube], tmp_path / "cube.md2", frame_source="ACTIONS"))
    assert model.frame_names == ["lift01", "lift02", "lift03", "lift04"]
    rest = np.array([v.co for v in cube.data.vertices])
    assign(bpy, cube, bpy.data.actions["lift"])
    expected = []
    for f in range(1, 5):
        bpy.context.scene.frame_set(f)
        expected.append(rest @ np.array(cube.matrix_world)[:3, :3].T + np.array(cube.matrix_world)[:3, 3])
    assert np.all(np.abs(model.positions()[:, :8] - np.array(expected)) <= model.frame_scale[:, None, :] / 2 + 1e-5)


def test_action_list_keeps_order_and_ticks(bpy_scene, extension):
    from importlib import import_module
    action_list = import_module(f"{extension}.exporters.sampling.action_list")
    scene = bpy_scene.context.scene
    action_list.sync_action_list(scene, ["a", "b", "c"])
    scene.classic_export_actions.move(2, 0)                 # c, a, b
    scene.classic_export_actions[1].export = False          # a unticked
    action_list.sync_action_list(scene, ["a", "b", "d"])    # c gone, d new
    assert action_list.listed_actions(scene) == [("a", False), ("b", True), ("d", True)]
    order = import_module(f"{extension}.exporters.sampling.action_sampling").order_actions
    assert order(["a", "b", "d", "e"], [("d", True), ("a", False), ("b", True)]) == ["d", "b", "e"]


def test_a_player_list_shows_the_standard_animations_first(bpy_scene, extension):
    from importlib import import_module
    action_list = import_module(f"{extension}.exporters.sampling.action_list")
    scene = bpy_scene.context.scene
    action_list.sync_action_list(scene, ["idle", "RUN", "zoom", "Stand"])
    scene.classic_export_actions[0].export = False
    action_list.sync_action_list(scene, ["idle", "RUN", "zoom", "Stand", "death3"], player=True)
    assert action_list.listed_actions(scene) == [("Stand", True), ("RUN", True), ("death3", True),
                                                 ("idle", False), ("zoom", True)]


def test_a_failure_while_sampling_puts_everything_back(bpy_scene, tmp_path, extension, monkeypatch):
    bpy = bpy_scene
    from importlib import import_module
    sampling = import_module(f"{extension}.exporters.sampling.action_sampling")
    obj, rig, actions = rigged_model(bpy)
    assign(bpy, rig, actions["walk"])
    rig.animation_data.use_nla = True
    slot = getattr(rig.animation_data, "action_slot", None)
    bpy.context.scene.frame_set(7)
    calls, original = [], sampling.checked_positions

    def failing(context, o, *args):      # the 10th evaluation (action 'walk') fails
        calls.append(o)
        if len(calls) == 10:
            raise sampling.ExportError("disk on fire")
        return original(context, o, *args)
    monkeypatch.setattr(sampling, "checked_positions", failing)
    with pytest.raises(RuntimeError, match="disk on fire"):
        export(bpy, "md2", [obj], tmp_path / "x.md2", frame_source="ACTIONS")
    assert len(calls) == 10 and not (tmp_path / "x.md2").exists()
    assert rig.animation_data.action == actions["walk"] and rig.animation_data.use_nla
    assert getattr(rig.animation_data, "action_slot", None) == slot
    assert bpy.context.scene.frame_current == 7


@pytest.mark.parametrize("relative", ["mdl/librequake/flame2.mdl", "md2/petaaar88-zarlag/tris.md2"])
def test_corpus_model_split_into_actions_exports_byte_for_byte(bpy_scene, tmp_path, relative):
    from support.environment import CORPUS
    path = CORPUS / relative
    if not path.is_file():
        pytest.skip(f"corpus file {relative} not found under {CORPUS}")
    bpy = bpy_scene
    kind = path.suffix[1:]
    assert getattr(bpy.ops.import_scene, kind)(filepath=str(path)) == {"FINISHED"}
    obj = bpy.context.view_layer.objects.active
    _split_into_actions(bpy, obj)
    assert len(obj.classic_model.animations) > 1
    bpy.context.scene.frame_set(2)     # the active action's keys now hold values other actions do not animate
    start = time.perf_counter()
    data = export(bpy, kind, [obj], tmp_path / path.name, frame_source="ACTIONS")
    print(f"{relative}: actions export {time.perf_counter() - start:.3f} s")
    assert data == path.read_bytes()[:len(data)] and len(data) <= path.stat().st_size


def test_each_action_starts_from_rest(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig, actions = rigged_model(bpy)
    rig.animation_data.action = None
    for f, angle in ((1, 0.0), (3, 0.6)):                 # 'nod' keys only the upper bone
        rig.pose.bones["upper"].rotation_euler = (angle, 0, 0)
        rig.pose.bones["upper"].keyframe_insert("rotation_euler", frame=f)
    nod = rig.animation_data.action
    nod.name, nod.use_fake_user = "nod", True
    assign(bpy, rig, actions["walk"])                      # walk's pose is what Blender would keep
    bpy.context.scene.frame_set(5)
    scene = bpy.context.scene
    scene.classic_export_actions.clear()
    for name in ("walk", "nod"):
        scene.classic_export_actions.add().name = name
    scene.classic_export_actions.add().name, scene.classic_export_actions[-1].export = "attack", False
    model = parse_md2(export(bpy, "md2", [obj], tmp_path / "nod.md2", frame_source="ACTIONS"))
    assert model.frame_names == [f"walk{i:02d}" for i in range(1, 6)] + ["nod01", "nod02", "nod03"]
    assert rig.animation_data.action == actions["walk"]
    rig.animation_data.action = None
    for bone in rig.pose.bones:                            # rest, then nod alone
        bone.location, bone.rotation_euler, bone.scale = (0, 0, 0), (0, 0, 0), (1, 1, 1)
    expected = posed(bpy, obj, rig, nod, range(1, 4))
    assert np.all(np.abs(model.positions()[5:] - expected) <= model.frame_scale[5:, None, :] / 2 + 1e-5)
