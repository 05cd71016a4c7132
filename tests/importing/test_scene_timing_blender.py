"""Scene Timing (MD2, MDL, MS3D import): an import sets the scene's frame rate and range only where
nothing else in the scene is animated; beside other animation the scene keeps its rate and the
model's frames are placed at it (file frame k at ``start + k * scene_fps / model_fps``), so both play
at their own speed. The truth: Blender's evaluation of the imported mesh at those scene times against
the file's frames, decoded by the independent readers."""
from __future__ import annotations

import math

import numpy as np
import pytest
from support.actions import action_fcurves
from support.blender_helpers import evaluated_positions, key_positions
from support.md2_synthetic import grid_model
from support.mdl_models import grouped_mdl as mdl_model

from formats.md2.codec import serialize_md2
from formats.mdl.codec import serialize_mdl
from formats.ms3d.records import Ms3dGroup, Ms3dJoint, Ms3dModel
from formats.ms3d.write import serialize_ms3d

MODEL_FPS = 10


def write_model(kind: str, folder) -> object:
    path = folder / f"thing.{kind}"
    if kind == "md2":
        path.write_bytes(serialize_md2(grid_model(frames=12)))
    else:
        path.write_bytes(serialize_mdl(mdl_model()))
    return path


def rig_ms3d(folder, fps: float = 25.0):
    """One triangle on one joint turning over 2 s (keys at 0, 1 and 2 s) at ``fps``."""
    keys = np.array([[0.0, 0, 0, 0], [1.0, 0, 0, 0.5], [2.0, 0, 0, 1.0]], np.float32)
    joint = Ms3dJoint(0, b"bone", b"", np.zeros(3, np.float32), np.zeros(3, np.float32), keys,
                      np.array([[0.0, 0, 0, 0], [2.0, 1, 0, 0]], np.float32))
    model = Ms3dModel(
        vert_flags=np.zeros(3, np.uint8), vert_xyz=np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32),
        vert_bone=np.zeros(3, np.int8), vert_refcount=np.ones(3, np.uint8), tri_flags=np.zeros(1, np.uint16),
        tri_vertices=np.array([[0, 1, 2]], np.uint16), tri_normals=np.tile([0, 0, 1], (1, 3, 1)).astype(np.float32),
        tri_s=np.zeros((1, 3), np.float32), tri_t=np.zeros((1, 3), np.float32),
        tri_smoothing=np.ones(1, np.uint8), tri_group=np.zeros(1, np.uint8),
        groups=[Ms3dGroup(0, b"body", np.array([0], np.uint16))], animation_fps=fps, total_frames=int(2 * fps),
        joints=[joint])
    path = folder / "rig.ms3d"
    path.write_bytes(serialize_ms3d(model))
    return path


def keyed_cube(bpy, fps: int = 24):
    """The default cube keyed over frames 1-20 of an ``fps`` scene; returns it and its key points."""
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = fps, 1.0
    scene.frame_start, scene.frame_end = 1, 20
    bpy.ops.mesh.primitive_cube_add()
    cube = bpy.context.object
    for frame, x in ((1, 0.0), (20, 5.0)):
        cube.location.x = x
        cube.keyframe_insert("location", frame=frame)
    return cube, cube_keys(cube)


def cube_keys(cube) -> list:
    curves = action_fcurves(cube.animation_data.action)
    return sorted((c.data_path, c.array_index, tuple(tuple(p.co) for p in c.keyframe_points)) for c in curves)


def import_model(bpy, path, **options):
    kind = path.suffix[1:]
    assert getattr(bpy.ops.import_scene, kind)(filepath=str(path), **options) == {"FINISHED"}
    return bpy.context.view_layer.objects.active


def export_selected(bpy, obj, path, **options) -> bytes:
    for other in bpy.context.view_layer.objects:
        other.select_set(other == obj)
    assert getattr(bpy.ops.export_scene, path.suffix[1:])(filepath=str(path), **options) == {"FINISHED"}
    return path.read_bytes()


def at_scene_time(bpy, obj, frame: float) -> np.ndarray:
    whole = math.floor(frame + 1e-9)
    bpy.context.scene.frame_set(whole, subframe=max(0.0, frame - whole))
    return evaluated_positions(bpy, obj)


def scene_rate(scene) -> float:
    return scene.render.fps / scene.render.fps_base


@pytest.mark.parametrize("kind", ["md2", "mdl"])
def test_import_beside_an_animated_cube_keeps_the_scene_rate(bpy_scene, tmp_path, capfd, kind):
    bpy = bpy_scene
    scene = bpy.context.scene
    cube, keys = keyed_cube(bpy)
    capfd.readouterr()
    obj = import_model(bpy, write_model(kind, tmp_path))
    out = capfd.readouterr().out
    assert scene_rate(scene) == 24 and scene.frame_start == 1
    assert cube_keys(cube) == keys
    names = [e.shape_key for e in obj.classic_model.frames]
    step = 24 / MODEL_FPS
    for k, name in enumerate(names):          # file frame k shows at k / 10 s: scene frame 1 + k * 2.4
        np.testing.assert_allclose(at_scene_time(bpy, obj, 1 + k * step), key_positions(obj, name), atol=1e-5)
    halfway = (key_positions(obj, names[1]) + key_positions(obj, names[2])) / 2
    np.testing.assert_allclose(at_scene_time(bpy, obj, 1 + 1.5 * step), halfway, atol=1e-4)
    last = math.ceil(1 + (len(names) - 1) * step)
    assert scene.frame_end == max(20, last)                 # extended to hold them (md2: 28), never shrunk
    animations = list(obj.classic_model.animations)
    assert animations[-1].frame_end == last
    first_frames = {a.name: math.floor(1 + next(i for i, n in enumerate(names) if n.startswith(a.name)) * step)
                    for a in animations}
    assert {m.name: m.frame for m in scene.timeline_markers} == first_frames
    assert [a.frame_start for a in animations] == list(first_frames.values())
    lines = [line for line in out.splitlines() if "keeps its 24 fps" in line]
    assert len(lines) == 1 and "'Cube'" in lines[0] and "every 2.4 scene frames" in lines[0]


@pytest.mark.parametrize("kind", ["md2", "mdl"])
def test_import_into_an_empty_scene_sets_the_model_rate(bpy_scene, tmp_path, capfd, kind):
    bpy = bpy_scene
    scene = bpy.context.scene
    scene.render.fps = 24
    bpy.ops.mesh.primitive_cube_add()             # a cube that is not animated does not count
    obj = import_model(bpy, write_model(kind, tmp_path))
    assert scene_rate(scene) == MODEL_FPS
    assert (scene.frame_start, scene.frame_end) == (1, len(obj.classic_model.frames))
    assert "fps" not in capfd.readouterr().out


@pytest.mark.parametrize("option, rate", [("SET", MODEL_FPS), ("KEEP", 24)])
def test_the_option_forces_either_behaviour(bpy_scene, tmp_path, option, rate):
    bpy = bpy_scene
    scene = bpy.context.scene
    scene.render.fps = 24
    if option == "SET":
        cube, _ = keyed_cube(bpy)
    obj = import_model(bpy, write_model("md2", tmp_path), scene_timing=option)
    assert scene_rate(scene) == rate
    last = obj.classic_model.frames[-1].shape_key
    np.testing.assert_allclose(at_scene_time(bpy, obj, 1 + (len(obj.classic_model.frames) - 1) * rate / MODEL_FPS),
                               key_positions(obj, last), atol=1e-5)


def test_a_second_import_keeps_the_first_ones_speed(bpy_scene, tmp_path, capfd):
    """Quake II player, then an MS3D rig at 25 fps: the rig is placed at the player's 10 fps."""
    bpy = bpy_scene
    scene = bpy.context.scene
    player = import_model(bpy, write_model("md2", tmp_path))
    assert scene_rate(scene) == MODEL_FPS
    capfd.readouterr()
    bpy.ops.import_scene.ms3d(filepath=str(rig_ms3d(tmp_path)))
    assert scene_rate(scene) == MODEL_FPS
    assert "keeps its 10 fps" in capfd.readouterr().out
    rig = next(o for o in scene.objects if o.type == "ARMATURE")
    key_frames = sorted({p.co[0] for c in cube_keys_of(rig) for p in c.keyframe_points})
    assert key_frames == [0.0, 10.0, 20.0]               # 0, 1 and 2 s at 10 fps
    assert scene.frame_end >= 20
    names = [e.shape_key for e in player.classic_model.frames]
    np.testing.assert_allclose(at_scene_time(bpy, player, 3), key_positions(player, names[2]), atol=1e-5)


def cube_keys_of(obj) -> list:
    return action_fcurves(obj.animation_data.action)


@pytest.mark.parametrize("kind", ["md2", "mdl"])
def test_untouched_export_after_a_keep_rate_import_is_the_same_file(bpy_scene, tmp_path, kind):
    bpy = bpy_scene
    keyed_cube(bpy)
    bpy.context.scene.frame_end = 250                     # a longer scene than the model: its own frames
    path = write_model(kind, tmp_path)
    obj = import_model(bpy, path)
    assert scene_rate(bpy.context.scene) == 24
    assert export_selected(bpy, obj, tmp_path / f"again.{kind}") == path.read_bytes()


def test_untouched_ms3d_export_after_a_keep_rate_import_keeps_its_times(bpy_scene, tmp_path):
    bpy = bpy_scene
    keyed_cube(bpy)
    path = rig_ms3d(tmp_path)
    bpy.ops.import_scene.ms3d(filepath=str(path))
    rig = next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")
    assert sorted({p.co[0] for c in cube_keys_of(rig) for p in c.keyframe_points}) == [0.0, 24.0, 48.0]
    for other in bpy.context.view_layer.objects:
        other.select_set(other.type != "MESH" or other.parent is not None)
    bpy.context.view_layer.objects.active = rig
    assert bpy.ops.export_scene.ms3d(filepath=str(tmp_path / "again.ms3d")) == {"FINISHED"}
    assert (tmp_path / "again.ms3d").read_bytes() == path.read_bytes()


@pytest.mark.parametrize("kind", ["md2", "mdl"])
def test_untouched_export_after_a_keep_rate_import_as_actions_is_the_same_file(bpy_scene, tmp_path, kind):
    """Each animation's action keyed every 2.4 frames: *Actions* and *Timeline* exports sample it there again."""
    bpy = bpy_scene
    keyed_cube(bpy)
    path = write_model(kind, tmp_path)
    obj = import_model(bpy, path, animations="ACTIONS")
    assert scene_rate(bpy.context.scene) == 24
    obj.classic_model.active_animation = 1                    # whichever action is showing
    for frame_source in ("TIMELINE", "ACTIONS"):
        exported = export_selected(bpy, obj, tmp_path / f"out_{frame_source}.{kind}", frame_source=frame_source)
        assert exported == path.read_bytes(), frame_source


def edited_four_frames(bpy, tmp_path):
    """A four-frame MD2 imported beside the keyed cube (24 fps, 1-20: frames placed every 2.4 scene frames),
    edited by a modifier that moves nothing (every frame sampled anew), exported: the decoded file."""
    from formats.md2.codec import parse_md2
    keyed_cube(bpy)
    path = tmp_path / "four.md2"
    path.write_bytes(serialize_md2(grid_model(frames=4)))
    obj = import_model(bpy, path)
    obj.modifiers.new("still", "DISPLACE").strength = 0.0
    return parse_md2(export_selected(bpy, obj, tmp_path / "edited.md2"))


def test_an_edited_model_placed_on_subframes_takes_its_frame_names_from_the_right_marker(bpy_scene, tmp_path):
    """A modifier makes every frame a sampled one (not a shape key): each is named from the last marker at
    or before it. ``run`` starts at file frame 2, scene frame 1 + 2 x 2.4 = 5.8: its marker must not be at 6."""
    names = edited_four_frames(bpy_scene, tmp_path).frame_names
    assert names[:4] == ["stand01", "stand02", "run01", "run02"]      # then the scene range (1-20) goes on: run03...


def test_an_edited_model_placed_on_subframes_gains_no_end_frame_where_its_last_pose_was_sampled(bpy_scene, tmp_path):
    """Four file frames placed at 1, 3.4, 5.8, 8.2 of a 1-20 scene: the game rate samples 1 ... 17.8, where
    the model already stands in the pose it ends on at 20, so no end-pose frame is added (it would repeat it)."""
    exported = edited_four_frames(bpy_scene, tmp_path)
    scene = bpy_scene.context.scene
    sampled = math.floor((scene.frame_end - scene.frame_start) / 2.4) + 1
    assert exported.num_frames == sampled == 8
