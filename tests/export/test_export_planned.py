"""Limits checked before sampling (issue 25): an MD2/MDL export whose frame count (from the frame range,
rate and step), vertex or triangle count (from the meshes) or frame names (from the markers) cannot fit
is refused before a single frame is evaluated, naming the model and saying what to change."""
from __future__ import annotations

import math
import re

import pytest

from formats.animations import group_animations
from formats.md2.codec import parse_md2
from formats.mdl.codec import parse_mdl


@pytest.fixture
def frame_changes(bpy_scene):
    """A list that grows by one for every frame the scene is set to (what sampling does)."""
    bpy = bpy_scene
    seen: list[int] = []

    def count(scene, *_):
        seen.append(scene.frame_current)
    bpy.app.handlers.frame_change_post.append(count)
    yield seen
    bpy.app.handlers.frame_change_post.remove(count)


def walker(bpy, last_frame: int):
    """Two animated meshes under one empty 'Walker'; scene 1..last_frame at 10 fps, both selected."""
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = 10, 1.0
    scene.frame_start, scene.frame_end = 1, last_frame
    root = bpy.data.objects.new("Walker", None)
    scene.collection.objects.link(root)
    parts = []
    for name, x in (("Leg back", 0.0), ("Leg front", 3.0)):
        bpy.ops.mesh.primitive_cube_add(location=(x, 0, 0))
        obj = bpy.context.object
        obj.name = name
        obj.parent = root
        obj.keyframe_insert("location", frame=1)
        obj.location.z += 2
        obj.keyframe_insert("location", frame=last_frame)
        parts.append(obj)
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj in parts)
    return parts


def test_too_many_frames_refused_before_sampling_naming_the_model(bpy_scene, tmp_path, frame_changes):
    bpy = bpy_scene
    walker(bpy, 600)
    frame_changes.clear()
    with pytest.raises(RuntimeError) as refused:
        bpy.ops.export_scene.md2(filepath=str(tmp_path / "w.md2"), frame_rate="SCENE")
    message = str(refused.value)
    assert frame_changes == [], "nothing was sampled"
    assert "model 'Walker' (2 mesh objects)" in message and "Leg back" not in message
    assert "600 frames, 88 over the limit of 512" in message
    assert f"--fps {math.floor(512 / (600 / 10))}" in message and "Frame Range" in message
    assert not (tmp_path / "w.md2").exists()

    with pytest.raises(RuntimeError) as refused:
        bpy.ops.export_scene.mdl(filepath=str(tmp_path / "w.mdl"), frame_rate="SCENE")
    assert frame_changes == []
    assert "600 frames, 344 over Quake's limit of 256" in str(refused.value)
    assert "--target modern" in str(refused.value)
    assert bpy.ops.export_scene.mdl(filepath=str(tmp_path / "w.mdl"), frame_rate="SCENE",
                                    target="MODERN") == {"FINISHED"}
    assert len(parse_mdl((tmp_path / "w.mdl").read_bytes()).pose_names) == 600
    assert len(frame_changes) >= 600, "the handler sees what sampling does"


def test_too_many_vertices_refused_before_sampling(bpy_scene, tmp_path, frame_changes):
    bpy = bpy_scene
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 300
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=50, y_subdivisions=50, calc_uvs=True)
    obj = bpy.context.object
    obj.keyframe_insert("location", frame=1)
    frame_changes.clear()
    with pytest.raises(RuntimeError, match=r"object 'Grid': cannot export as MD2: 2601 vertices, 553 over the "
                                           r"limit of 2048; 5000 triangles, 904 over the limit of 4096"):
        bpy.ops.export_scene.md2(filepath=str(tmp_path / "g.md2"))
    assert frame_changes == []


def test_actions_refusal_names_the_step_that_fits(bpy_scene, tmp_path, frame_changes):
    bpy = bpy_scene
    bpy.ops.mesh.primitive_cube_add()
    obj = bpy.context.object
    obj.keyframe_insert("location", frame=1)
    obj.location.x = 5
    obj.keyframe_insert("location", frame=1200)
    frame_changes.clear()
    with pytest.raises(RuntimeError) as refused:
        bpy.ops.export_scene.md2(filepath=str(tmp_path / "a.md2"), frame_source="ACTIONS", frame_rate="SCENE")
    assert frame_changes == []
    found = re.search(r"Step (\d+) writes (\d+) frames", str(refused.value))
    assert found, str(refused.value)
    step, count = int(found[1]), int(found[2])

    def written(s: int) -> int:      # every s-th frame of 1..1200 and the last one always
        return len(range(1, 1201, s)) + (0 if (1200 - 1) % s == 0 else 1)
    assert count == written(step) <= 512 < written(step - 1)
    assert bpy.ops.export_scene.md2(filepath=str(tmp_path / "a.md2"), frame_source="ACTIONS",
                                    frame_rate="SCENE", step=step) == {"FINISHED"}
    assert parse_md2((tmp_path / "a.md2").read_bytes()).num_frames == count


def test_marker_names_too_long_refused_before_sampling_then_fitted(bpy_scene, tmp_path, frame_changes):
    bpy = bpy_scene
    scene = bpy.context.scene
    scene.render.fps, scene.frame_start, scene.frame_end = 10, 1, 24
    bpy.ops.mesh.primitive_cube_add()
    obj = bpy.context.object
    obj.keyframe_insert("location", frame=1)
    obj.location.x = 5
    obj.keyframe_insert("location", frame=24)
    scene.timeline_markers.new("walking_forward", frame=1)     # 15 characters + 2 digits
    scene.timeline_markers.new("walking_backward", frame=13)
    frame_changes.clear()
    with pytest.raises(RuntimeError) as refused:
        bpy.ops.export_scene.md2(filepath=str(tmp_path / "m.md2"))
    assert frame_changes == []
    assert str(refused.value).count("frame names are longer than the limit of 15") == 1
    assert bpy.ops.export_scene.md2(filepath=str(tmp_path / "m.md2"), fit_names=True) == {"FINISHED"}
    names = parse_md2((tmp_path / "m.md2").read_bytes()).frame_names
    assert len(names) == 24 and len(set(names)) == 24 and all(len(n) <= 15 for n in names)
    assert [(a.first, a.last) for a in group_animations(names)] == [(0, 11), (12, 23)]
    assert names[0].endswith("01") and names[12].endswith("01")
