"""Issue 29: the game rate (every 0.1 s) passes the last frame of a short animation by: a ``pain``
action of frames 1-5 at 24 fps is sampled at frames 1 and 3.4 only. Its end pose is written as one
more frame (MD2 and MDL, actions and the timeline range), counted by the limits checked before
sampling, and named in the report; a cycle that ends where it starts keeps its frames. The truth is
Blender's own evaluation, decoded by the independent readers."""
from __future__ import annotations

import pytest
from support.actions import assign
from support.blender_helpers import keyed_action
from support.frame_rates import blender_positions, decoded, export, within_half_a_step

END_LINE = "End pose added: "


def cube_24fps(bpy):
    """A 24 fps scene, range 1-5, with a cube (UVs from the primitive) and no animation yet."""
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = 24, 1.0
    scene.frame_start, scene.frame_end = 1, 5
    bpy.ops.mesh.primitive_cube_add()
    return bpy.context.object


@pytest.mark.parametrize("kind", ("md2", "mdl"))
def test_a_short_action_gains_its_end_pose_and_a_cycle_does_not(bpy_scene, tmp_path, capfd, kind):
    bpy = bpy_scene
    obj = cube_24fps(bpy)
    actions = {"death": keyed_action(bpy, obj, "death", ((1, 0.0), (5, -3.0))),
               "idle": keyed_action(bpy, obj, "idle", ((1, 0.0), (3, 1.0), (5, 0.0))),     # a cycle
               "pain": keyed_action(bpy, obj, "pain", ((1, 0.0), (5, 2.0)))}
    positions, half, names = decoded(kind, export(bpy, obj, tmp_path / f"a.{kind}", frame_source="ACTIONS"))
    out = capfd.readouterr().out
    # 1 and 3.4 (0.1 s later) for each; the end, frame 5, for death and pain
    expected = [("death", 1), ("death", 3.4), ("death", 5), ("idle", 1), ("idle", 3.4),
                ("pain", 1), ("pain", 3.4), ("pain", 5)]
    assert names == ["death01", "death02", "death03", "idle01", "idle02", "pain01", "pain02", "pain03"]
    for k, (name, frame) in enumerate(expected):
        assign(bpy, obj, actions[name])
        assert within_half_a_step(positions[k], half[k], blender_positions(bpy, obj, frame)), (name, frame)
    assert f"{END_LINE}2 animation(s) gained their last pose as a frame (the game rate passed it by): " \
           "'death', 'pain'" in out
    assert "Frame rate: Game, 10 per second: 8 frame(s)" in out


@pytest.mark.parametrize("kind", ("md2", "mdl"))
def test_the_timeline_range_gains_its_end_pose(bpy_scene, tmp_path, capfd, kind):
    bpy = bpy_scene
    obj = cube_24fps(bpy)
    assign(bpy, obj, keyed_action(bpy, obj, "pain", ((1, 0.0), (5, 2.0))))
    bpy.context.scene.timeline_markers.new("pain", frame=1)
    positions, half, names = decoded(kind, export(bpy, obj, tmp_path / f"t.{kind}"))
    assert names == ["pain01", "pain02", "pain03"]
    for k, frame in enumerate((1, 3.4, 5)):
        assert within_half_a_step(positions[k], half[k], blender_positions(bpy, obj, frame)), frame
    assert f"{END_LINE}1 animation(s) gained their last pose as a frame (the game rate passed it by): " \
           "'pain'" in capfd.readouterr().out


@pytest.mark.parametrize("kind", ("md2", "mdl"))
def test_a_timeline_cycle_keeps_its_frames(bpy_scene, tmp_path, capfd, kind):
    bpy = bpy_scene
    obj = cube_24fps(bpy)
    assign(bpy, obj, keyed_action(bpy, obj, "idle", ((1, 0.0), (3, 1.0), (5, 0.0))))
    positions, _, names = decoded(kind, export(bpy, obj, tmp_path / f"c.{kind}"))
    assert names == ["frame01", "frame02"] and len(positions) == 2
    assert END_LINE not in capfd.readouterr().out


@pytest.mark.parametrize("source", ("TIMELINE", "ACTIONS"))
def test_the_end_pose_counts_against_the_frame_limit(bpy_scene, tmp_path, source):
    """Frames 1-614 at 24 fps: 256 steps of 0.1 s (the last at 613) fit Quake's 256 frames; the end
    pose at 614 makes 257, refused before sampling."""
    bpy = bpy_scene
    obj = cube_24fps(bpy)
    bpy.context.scene.frame_end = 614
    assign(bpy, obj, keyed_action(bpy, obj, "long", ((1, 0.0), (614, 2.0))))
    with pytest.raises(RuntimeError, match="257 frames, 1 over Quake's limit of 256"):
        bpy.ops.export_scene.mdl(filepath=str(tmp_path / "l.mdl"), frame_source=source)
    assert not (tmp_path / "l.mdl").exists()
