"""Issue 30: the export's frame plan (which frames, at which scene times, from where, named how) is one
object made once (:mod:`exporters.sampling.frame_plan`) and handed to the samplers. The plans of small
scenes built here are checked against what Blender itself has and evaluates: the scene range and rate,
the markers, the actions' frame ranges, the evaluated mesh at each planned time; an export makes one
plan and every later stage gets that same plan; the written frame names are the plan's."""
from __future__ import annotations

import importlib
import math
import os
from pathlib import Path

import numpy as np
import pytest
from support.blender_helpers import keyed_action

CHECKOUT = Path(__file__).resolve().parents[2]
CORPUS = Path(os.environ.get("CLASSIC_MODELS_CORPUS") or CHECKOUT.parent / "shared" / "corpus")
WEAPON = CORPUS / "md2" / "glscene" / "weaponWaste.md2"


def module(extension: str, name: str):
    return importlib.import_module(f"{extension}.exporters.sampling.{name}")


def plan_of(bpy, extension: str, objects, **options):
    """The frame plan an MD2 export of ``objects`` with ``options`` makes."""
    meshes = module(extension, "animated_mesh")
    topologies = [meshes.checked_topology(bpy.context, obj, "MD2", ()) for obj in objects]
    frame_options = module(extension, "options").FrameExportOptions(**options)
    return module(extension, "frame_plan").plan_frames(bpy.context, objects, topologies, frame_options)


def scene_at(bpy, fps: int, start: int, end: int):
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = fps, 1.0
    scene.frame_start, scene.frame_end = start, end
    return scene


def cube(bpy):
    bpy.ops.mesh.primitive_cube_add()
    return bpy.context.object


def evaluated(bpy, obj, time: float) -> np.ndarray:
    """World-space vertex positions Blender evaluates at scene time ``time`` (a subframe allowed)."""
    scene = bpy.context.scene
    scene.frame_set(int(math.floor(time)), subframe=time - math.floor(time))
    assert math.isclose(scene.frame_current + scene.frame_subframe, time, abs_tol=1e-4)
    obj_eval = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    mesh = obj_eval.to_mesh()
    co = np.array([obj_eval.matrix_world @ v.co for v in mesh.vertices])
    obj_eval.to_mesh_clear()
    return co


def marker_name(scene, time: float, every: float) -> str:
    """``<marker><nn>`` from the scene's markers: the last at or before ``time``, nn counting ``every`` frames."""
    before = [m for m in scene.timeline_markers if m.frame <= time + 1e-6]
    marker = max(before, key=lambda m: m.frame)
    return f"{marker.name}{int(math.floor((time - marker.frame) / every + 1e-6)) + 1:02d}"


def test_timeline_every_scene_frame_named_by_markers(bpy_scene, extension):
    bpy = bpy_scene
    scene = scene_at(bpy, 24, 3, 12)
    scene.timeline_markers.new("stand", frame=3)
    scene.timeline_markers.new("run", frame=8)
    obj = cube(bpy)
    plan = plan_of(bpy, extension, [obj], frame_rate="SCENE")
    assert plan.source == "TIMELINE" and plan.every == 1.0
    assert plan.times == list(range(scene.frame_start, scene.frame_end + 1))
    assert {f.source for f in plan.frames} == {"TIMELINE"}
    assert [f.name for f in plan.frames] == [marker_name(scene, t, 1.0) for t in plan.times]
    assert plan.names[0] == "stand01" and plan.names[5] == "run01"
    assert plan.model_fps == scene.render.fps / scene.render.fps_base
    assert plan.end_pose == [] and plan.may_be_still, "a cube nothing animates may be written as one frame"


def test_game_rate_steps_scene_time_and_adds_the_end_pose(bpy_scene, extension):
    bpy = bpy_scene
    scene = scene_at(bpy, 24, 1, 5)
    obj = cube(bpy)
    obj.animation_data_create()
    obj.animation_data.action = keyed_action(bpy, obj, "walk", ((1, 0.0), (5, 1.0)))
    plan = plan_of(bpy, extension, [obj])
    every = (scene.render.fps / scene.render.fps_base) / 10
    assert plan.every == pytest.approx(every) and plan.model_fps == 10
    assert plan.times[:-1] == pytest.approx([scene.frame_start + k * every for k in range(len(plan.times) - 1)])
    assert plan.times[-1] == scene.frame_end, "the end pose the 0.1 s steps pass by"
    first, passed, last = (evaluated(bpy, obj, t) for t in (plan.times[0], plan.times[-2], plan.times[-1]))
    assert not np.allclose(last, first) and not np.allclose(last, passed)
    assert plan.end_pose == [f"frames {scene.frame_start}-{scene.frame_end}"]
    assert [f.name for f in plan.frames] == ["frame01", "frame02", "frame03"]
    assert not plan.may_be_still, "an animated object keeps its frames"

    obj.animation_data.action = keyed_action(bpy, obj, "cycle", ((1, 0.0), (3, 1.0), (5, 0.0)))
    plan = plan_of(bpy, extension, [obj])
    assert np.allclose(evaluated(bpy, obj, scene.frame_end), evaluated(bpy, obj, scene.frame_start))
    assert plan.end_pose == [] and scene.frame_end not in plan.times, "a cycle ends where it starts"


def test_actions_in_order_over_their_own_ranges(bpy_scene, extension):
    bpy = bpy_scene
    scene_at(bpy, 24, 1, 250)
    obj = cube(bpy)
    run = keyed_action(bpy, obj, "run", ((2, 0.0), (7, 2.0)))
    jump = keyed_action(bpy, obj, "jump", ((1, 0.0), (4, 1.0)))
    plan = plan_of(bpy, extension, [obj], frame_source="ACTIONS", frame_rate="SCENE",
                   actions=[("run", True), ("jump", True)])
    assert plan.source == "ACTIONS" and [a.action.name for a in plan.actions] == ["run", "jump"]
    expected = [(a, t) for a in (run, jump)
                for t in range(int(a.frame_range[0]), int(a.frame_range[1]) + 1)]
    assert [(f.action, f.time) for f in plan.frames] == [(a.name, t) for a, t in expected]
    assert {f.source for f in plan.frames} == {"ACTION"}
    assert [f.name for f in plan.frames[:3]] == ["run01", "run02", "run03"]
    assert plan.frames[6].name == "jump01" and plan.frames[6].index == 0
    assert plan.names is None, "action names are not the timeline's"

    plan = plan_of(bpy, extension, [obj], frame_source="ACTIONS", frame_rate="SCENE", step=4,
                   actions=[("run", False), ("jump", True)])
    assert plan.times == [1, jump.frame_range[1]], "every 4th frame, the last always; an unticked action left out"


def test_shape_keys_one_frame_per_key(bpy_scene, extension):
    bpy = bpy_scene
    scene = scene_at(bpy, 24, 1, 40)
    scene.timeline_markers.new("pose", frame=1)
    obj = cube(bpy)
    for name in ("Basis", "open", "shut"):
        obj.shape_key_add(name=name)
    plan = plan_of(bpy, extension, [obj], frame_source="SHAPE_KEYS")
    keys = obj.data.shape_keys.key_blocks
    assert plan.source == "SHAPE_KEYS" and [f.index for f in plan.frames] == list(range(1, len(keys)))
    assert {f.source for f in plan.frames} == {"SHAPE_KEY"} and plan.model_fps == 10


@pytest.mark.skipif(not WEAPON.is_file(), reason=f"corpus model not found at {WEAPON}")
def test_a_model_imported_at_the_scene_rate_is_found_back(bpy_scene, extension):
    """Imported with Keep Scene Rate into a 24 fps scene, file frame k sits at ``start + 2.4 k``: the
    game-rate plan samples exactly there, and puts each frame under the marker of the file's animation
    at its place in it (the file's own names, ``run1`` for ``run01``, come from the frame table)."""
    bpy = bpy_scene
    scene = scene_at(bpy, 24, 1, 10)
    bpy.ops.import_scene.md2(filepath=str(WEAPON), scene_timing="KEEP")
    obj = next(o for o in scene.objects if o.type == "MESH")
    keys = obj.data.shape_keys.key_blocks
    plan = plan_of(bpy, extension, [obj])
    assert len(plan.frames) == len(keys) - 1 and plan.end_pose == []
    markers = [m.name for m in scene.timeline_markers]
    expected, counts = [], {}
    for key in keys[1:]:
        animation = max((m for m in markers if key.name.startswith(m)), key=len)
        counts[animation] = counts.get(animation, 0) + 1
        expected.append((animation, counts[animation]))
    assert [(f.marker, f.number) for f in plan.frames] == expected
    world = np.array(obj.matrix_world)
    for k in (0, 1, 2, 40, len(keys) - 2):
        expected = np.array([world[:3, :3] @ p.co + world[:3, 3] for p in keys[k + 1].data])
        assert np.allclose(evaluated(bpy, obj, plan.times[k]), expected, atol=1e-4), k


def test_an_export_makes_one_plan_and_hands_it_on(bpy_scene, extension, tmp_path, monkeypatch):
    bpy = bpy_scene
    scene = scene_at(bpy, 24, 1, 5)
    scene.timeline_markers.new("walk", frame=1)
    obj = cube(bpy)
    obj.animation_data_create()
    obj.animation_data.action = keyed_action(bpy, obj, "walk", ((1, 0.0), (5, 1.0)))
    pipeline = module(extension, "pipeline")
    plans, handed = [], []

    def counted(real, position):
        def wrapper(*args, **kwargs):
            if position is None:
                plans.append(real(*args, **kwargs))
                return plans[-1]
            handed.append(args[position])
            return real(*args, **kwargs)
        return wrapper
    monkeypatch.setattr(pipeline, "plan_frames", counted(pipeline.plan_frames, None))
    for name, position in (("sample_parts", 3), ("still_frames", 2), ("exported_frames", 0)):
        monkeypatch.setattr(pipeline, name, counted(getattr(pipeline, name), position))
    path = tmp_path / "walk.md2"
    assert bpy.ops.export_scene.md2(filepath=str(path)) == {"FINISHED"}
    assert len(plans) == 1, "the frame plan is made once"
    assert len(handed) == 3 and all(p is plans[0] for p in handed)
    codec = importlib.import_module(f"{extension}.formats.md2.codec")
    written = codec.parse_md2(path.read_bytes()).frame_names
    assert written == plans[0].names == ["walk01", "walk02", "walk03"], "the end pose is the next number"


def named_by_rule(markers, start, frames, step):
    """(name, base, number) per frame by the naming rule, every marker looked at for every frame: the last
    marker at or before the frame's time (1e-6 slack), else ``frame`` from ``start``; the number counts ``step``
    frames from it, from 1; a frame of the same base as the previous one whose number is not past that frame's
    continues from it (two markers on one frame, or steps shorter than a frame)."""
    out, previous = [], ("", 0)
    for _source, time, _index in frames:
        before = [m for m in markers if m[0] <= time + 1e-6]
        base, first = (before[-1][1], before[-1][0]) if before else ("frame", start)
        number = int(math.floor((time - first) / step + 1e-6)) + 1
        shown = previous[1] + 1 if previous[0] == base and number <= previous[1] else number
        previous = base, shown
        out.append((f"{base}{shown:02d}", base, number))
    return out


def test_frame_names_follow_the_rule_with_markers_found_by_bisection(extension):
    """Issue 33: the last marker at or before each frame is found by bisection (before: every marker
    looked at for every frame); the names, bases and numbers are the rule's (:func:`named_by_rule`) for
    markers sharing frames, before the range, between steps, and none; game-rate and scene-rate steps,
    fractional times within the 1e-6 slack."""
    named = module(extension, "frame_plan")._named
    rng = np.random.default_rng(33)
    for case in range(40):
        count = int(rng.integers(0, 30))
        markers = sorted((int(f), f"m{i}_") for i, f in enumerate(rng.integers(-5, 120, count)))
        step = float(rng.choice([1.0, 2.4, 2.5, 0.5]))
        times = sorted(float(t) for t in np.round(rng.uniform(-3, 125, int(rng.integers(1, 80))), 1))
        times += [float(markers[0][0]) - 5e-7] if markers else []
        frames = [("TIMELINE", t, 0) for t in sorted(times)]
        got = [(f.name, f.marker, f.number) for f in named(markers, 1, frames, step)]
        assert got == named_by_rule(markers, 1, frames, step), case
