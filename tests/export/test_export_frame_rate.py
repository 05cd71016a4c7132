"""Frame Rate (MD2, MDL): *Game* samples the scene every 0.1 s of scene time, so Quake and Quake II
(10 model frames a second) play the animation as long as Blender does; *Every Frame* writes
one frame per scene frame. The truth is Blender's own evaluation at that scene time
(``scene.frame_set(frame, subframe=...)``), decoded by the independent readers."""
from __future__ import annotations

import pytest
from support.frame_rates import blender_positions, decoded, export, within_half_a_step
from support.md2_reference import decode as decode_md2

SECONDS = 2


def animated_scene(bpy, fps: float, fps_base: float = 1.0):
    """A sphere that moves, turns and twists for SECONDS seconds at ``fps`` scene frames a second."""
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = int(round(fps * fps_base)), fps_base
    rate = scene.render.fps / scene.render.fps_base
    scene.frame_start = 1
    scene.frame_end = int(round(SECONDS * rate))
    bpy.ops.mesh.primitive_uv_sphere_add(segments=12, ring_count=6)
    obj = bpy.context.object
    twist = obj.modifiers.new("twist", "SIMPLE_DEFORM")
    twist.deform_axis = "Z"
    for frame, x, angle in ((1, 0.0, 0.0), (scene.frame_end, 12.0, 2.5)):
        obj.location.x, obj.rotation_euler.z, twist.angle = x, angle / 2, angle
        obj.keyframe_insert("location", frame=frame)
        obj.keyframe_insert("rotation_euler", frame=frame)
        twist.keyframe_insert("angle", frame=frame)
    scene.frame_set(1)
    return obj, rate


@pytest.mark.parametrize("kind", ("md2", "mdl"))
@pytest.mark.parametrize("fps,fps_base", ((24, 1.0), (25, 1.0), (30, 1.0), (60, 1.0), (30, 1.001)))
def test_game_rate_samples_every_tenth_of_a_second(bpy_scene, tmp_path, capfd, kind, fps, fps_base):
    bpy = bpy_scene
    obj, rate = animated_scene(bpy, fps, fps_base)
    positions, half, _ = decoded(kind, export(bpy, obj, tmp_path / f"m.{kind}"))
    scene = bpy.context.scene
    # k / 10 s for every k whose scene time is within the range (SECONDS * 10 frames), then the
    # range's last frame, which those steps pass by and where the sphere is elsewhere than at the start
    times = [scene.frame_start + k / 10 * rate for k in range(SECONDS * 10)]
    assert times[-1] < scene.frame_end < times[-1] + rate / 10
    times.append(scene.frame_end)
    assert len(positions) == len(times)
    assert scene.frame_current == 1 and scene.frame_subframe == 0.0       # put back
    for k, time in enumerate(times):
        truth = blender_positions(bpy, obj, time)
        assert within_half_a_step(positions[k], half[k], truth), k
    out = capfd.readouterr().out
    assert f"Frame rate: Game, 10 per second: {len(times)} frame(s), one every {rate / 10:.4g} scene frames" in out
    assert f"End pose added: 1 animation(s) gained their last pose as a frame (the game rate passed it by): " \
           f"'frames 1-{scene.frame_end}'" in out


@pytest.mark.parametrize("kind", ("md2", "mdl"))
def test_every_scene_frame_writes_one_frame_per_scene_frame(bpy_scene, tmp_path, capfd, kind):
    bpy = bpy_scene
    obj, rate = animated_scene(bpy, 24)
    positions, half, _ = decoded(kind, export(bpy, obj, tmp_path / f"m.{kind}", frame_rate="SCENE"))
    assert len(positions) == SECONDS * 24
    for f in (1, 2, 17, 48):
        assert within_half_a_step(positions[f - 1], half[f - 1], blender_positions(bpy, obj, f)), f
    assert "the animation runs 2.4 times as long in the game" in capfd.readouterr().out


@pytest.mark.parametrize("kind", ("md2", "mdl"))
def test_a_10_fps_scene_gives_the_same_file_either_way(bpy_scene, tmp_path, kind):
    bpy = bpy_scene
    obj, _ = animated_scene(bpy, 10)
    game = export(bpy, obj, tmp_path / "game" / f"m.{kind}")       # one name: the grey skin is named after it
    assert export(bpy, obj, tmp_path / "scene" / f"m.{kind}", frame_rate="SCENE") == game
    assert len(decoded(kind, game)[0]) == SECONDS * 10


def test_markers_name_the_game_rate_frames(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, _ = animated_scene(bpy, 24)
    scene = bpy.context.scene
    scene.timeline_markers.new("idle", frame=1)
    scene.timeline_markers.new("run", frame=25)        # 1 s in: the game frame k = 10
    scene.timeline_markers.new("jump", frame=40)       # between k = 16 (scene frame 39.4) and k = 17 (41.8)
    _, _, names = decoded("md2", export(bpy, obj, tmp_path / "m.md2"))
    assert names == ([f"idle{i:02d}" for i in range(1, 11)] + [f"run{i:02d}" for i in range(1, 8)]
                     + [f"jump{i:02d}" for i in range(1, 5)])     # jump04: the end pose, frame 48


def test_actions_sample_at_the_game_rate(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rate = animated_scene(bpy, 24)
    action = obj.animation_data.action
    first, last = (int(round(f)) for f in action.frame_range)
    positions, half, names = decoded("md2", export(bpy, obj, tmp_path / "a.md2", frame_source="ACTIONS"))
    times = [first + k * rate / 10 for k in range(int((last - first) / (rate / 10) + 1e-6) + 1)] + [last]
    assert len(positions) == len(times) == SECONDS * 10 + 1          # and the end pose
    assert names == [f"{action.name}{i:02d}" for i in range(1, len(times) + 1)]
    for k in (0, 7, len(times) - 1):
        assert within_half_a_step(positions[k], half[k], blender_positions(bpy, obj, times[k])), k


def test_shape_keys_mode_ignores_the_rate(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, _ = animated_scene(bpy, 24)
    obj.shape_key_add(name="Basis")
    obj.shape_key_add(name="wide").data[0].co.x += 1.0
    game = export(bpy, obj, tmp_path / "game" / "m.md2", frame_source="SHAPE_KEYS")
    assert export(bpy, obj, tmp_path / "scene" / "m.md2", frame_source="SHAPE_KEYS", frame_rate="SCENE") == game
    assert decode_md2(game).frame_names == ["wide"]
