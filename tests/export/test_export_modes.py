"""Exports from every mode and odd selections, and meshes whose topology changes over time.

Every exporter (MD2, MDL, MS3D, the Quake II player, the Collection Exporter path) must take the
mesh as Blender shows it, unsaved Edit Mode changes included, leave the user in their mode, and
give a file or a clear refusal (an operator error report, never a Python traceback)."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from support.md2_reference import decode as decode_md2
from support.mdl_reference import decode as decode_mdl
from support.ms3d_reference import decode as decode_ms3d

from formats.md2.codec import parse_md2
from formats.mdl.codec import parse_mdl

MOVED = np.array([0.5, -1.0, -1.0])      # the primitive cube's corner (-1, -1, -1) moved 1.5 along x
EXPORTERS = ("md2", "mdl", "ms3d", "player", "collection")
MODES = ("OBJECT", "EDIT", "POSE", "SCULPT", "WEIGHT_PAINT")


def run_export(bpy, kind: str, folder: Path, collection: str = "") -> tuple[Path, set]:
    """Export with ``kind``; returns the file it writes and the operator's result (RuntimeError raised)."""
    folder.mkdir(parents=True, exist_ok=True)
    if kind == "player":
        path = folder / "tris.md2"
        return path, bpy.ops.export_scene.md2(filepath=str(path), player=True, frame_rate="SCENE")
    if kind == "collection":       # what a Collection Exporter runs: the operator with its collection
        path = folder / "c.md2"
        return path, bpy.ops.export_scene.md2(filepath=str(path), collection=collection or "Models")
    path = folder / f"m.{kind}"
    extra = {} if kind == "ms3d" else {"frame_rate": "SCENE"}
    return path, getattr(bpy.ops.export_scene, kind)(filepath=str(path), **extra)


def file_vertices(kind: str, path: Path) -> np.ndarray:
    """The first frame's vertex positions, decoded by the independent readers."""
    data = path.read_bytes()
    if kind == "mdl":
        ref = decode_mdl(data)
        verts = np.array([v[:3] for v in ref.frames[0].poses[0].verts], np.float64)
        return verts * np.array(ref.scale) + np.array(ref.translate)
    if kind == "ms3d":
        return np.array([v[1] for v in decode_ms3d(data).vertices], np.float64)
    return np.array(decode_md2(data).positions[0], np.float64)


def edited_cube(bpy):
    import bmesh
    scene = bpy.context.scene
    scene.frame_start = scene.frame_end = 1
    bpy.ops.mesh.primitive_cube_add()
    obj = bpy.context.object
    models = bpy.data.collections.new("Models")
    scene.collection.children.link(models)
    models.objects.link(obj)
    bpy.ops.object.mode_set(mode="EDIT")
    bm = bmesh.from_edit_mesh(obj.data)
    bm.verts.ensure_lookup_table()
    corner = [v for v in bm.verts if np.allclose(tuple(v.co), (-1, -1, -1))][0]
    corner.co.x += 1.5
    bmesh.update_edit_mesh(obj.data)
    return obj


@pytest.mark.parametrize("kind", EXPORTERS)
def test_export_from_edit_mode_writes_the_edit_and_stays_in_edit_mode(bpy_scene, tmp_path, kind):
    bpy = bpy_scene
    import bmesh
    obj = edited_cube(bpy)
    path, result = run_export(bpy, kind, tmp_path)
    assert result == {"FINISHED"}
    assert obj.mode == "EDIT" and bpy.context.object == obj and obj.select_get()
    assert_moved_corner(kind, file_vertices(kind, path))
    bm = bmesh.from_edit_mesh(obj.data)       # the edit is still there, in Edit Mode
    assert any(np.allclose(tuple(v.co), MOVED) for v in bm.verts)


def assert_moved_corner(kind: str, verts: np.ndarray) -> None:
    if kind == "ms3d":      # MilkShape's axes: y up, z towards the viewer (Blender -y); x is x
        moved, old = verts[:, 0] == np.float32(0.5), np.isclose(verts[:, 0], -1.0)
        assert moved.sum() == 1 and np.allclose(np.abs(verts[moved][0, 1:]), 1.0) and old.sum() == 3
    else:
        step = 0.02     # a 2-unit cube on 255 steps: under 0.008 per step; half of it is the error bound
        assert np.linalg.norm(verts - MOVED, axis=1).min() < step
        assert np.linalg.norm(verts - (-1.0, -1.0, -1.0), axis=1).min() > 1.0


@pytest.mark.parametrize("kind", ("md2", "mdl", "ms3d"))
def test_collection_exporter_from_edit_mode_writes_the_edit(bpy_scene, tmp_path, kind):
    bpy = bpy_scene
    obj = edited_cube(bpy)
    models = bpy.data.collections["Models"]
    path = tmp_path / f"c.{kind}"
    with bpy.context.temp_override(collection=models):
        bpy.ops.collection.exporter_add(name=f"IO_FH_classic_models_{kind}")
        models.exporters[0].export_properties.filepath = str(path)
        assert bpy.ops.collection.exporter_export(index=0) == {"FINISHED"}
    assert obj.mode == "EDIT"
    assert_moved_corner(kind, file_vertices(kind, path))


def mode_scene(bpy):
    """A rigged cube with a UV map, a text, a curve, a hidden mesh and a collection instance."""
    C = bpy.context
    scene = C.scene
    scene.frame_start, scene.frame_end = 1, 2
    models = bpy.data.collections.new("Models")
    scene.collection.children.link(models)
    bpy.ops.object.armature_add()
    rig = C.object
    bpy.ops.mesh.primitive_cube_add()
    body = C.object
    body.vertex_groups.new(name="Bone").add(list(range(8)), 1.0, "REPLACE")
    body.modifiers.new("rig", "ARMATURE").object = rig
    bpy.ops.object.text_add()
    text = C.object
    bpy.ops.curve.primitive_bezier_curve_add()
    curve = C.object
    bpy.ops.mesh.primitive_uv_sphere_add(segments=8, ring_count=4)
    hidden = C.object
    hidden.hide_set(True)
    source = bpy.data.collections.new("Source")
    bpy.ops.mesh.primitive_cone_add()
    cone = C.object
    scene.collection.objects.unlink(cone)
    source.objects.link(cone)
    instancer = bpy.data.objects.new("Instancer", None)
    instancer.instance_type, instancer.instance_collection = "COLLECTION", source
    scene.collection.objects.link(instancer)
    for obj in (rig, body, text, curve, hidden, instancer):
        models.objects.link(obj)
    return {"rig": rig, "body": body, "text": text, "curve": curve, "hidden": hidden, "instanced": instancer}


SELECTIONS = (("mesh", ("body",)), ("mesh and rig", ("body", "rig")), ("text", ("text",)), ("curve", ("curve",)),
              ("hidden", ("hidden",)), ("instanced", ("instanced",)), ("nothing", ()))


def checked_export(bpy, kind: str, folder: Path, what: str, collection: str = "") -> str:
    """Export; the outcome is a readable file or an error report without a traceback."""
    try:
        path, result = run_export(bpy, kind, folder, collection)
    except RuntimeError as exc:
        message = str(exc)
        assert "Traceback" not in message and "Python:" not in message, f"{kind}, {what}: {message}"
        assert message.startswith("Error: "), message
        assert not any(folder.iterdir()), f"{kind}, {what}: a refused export left files"
        return "refused: " + message
    assert result == {"FINISHED"}
    written = path.read_bytes()
    parse = {"mdl": parse_mdl, "ms3d": decode_ms3d}.get(kind, parse_md2)
    parse(written)
    return "written"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", EXPORTERS)
def test_every_exporter_from_every_mode_gives_a_file_or_a_clear_refusal(bpy_scene, tmp_path, kind, mode):
    bpy = bpy_scene
    objects = mode_scene(bpy)
    view_layer = bpy.context.view_layer
    active = objects["rig"] if mode == "POSE" else objects["body"]
    for obj in view_layer.objects:
        obj.select_set(obj == active)
    view_layer.objects.active = active
    bpy.ops.object.mode_set(mode=mode)
    outcomes = {}
    for i, (what, names) in enumerate(SELECTIONS):
        if kind == "collection" and i:
            break
        for obj in view_layer.objects:
            obj.select_set(False)
        for name in names:
            objects[name].select_set(True)
        selected = {o.name for o in view_layer.objects if o.select_get()}
        outcomes[what] = checked_export(bpy, kind, tmp_path / str(i), what)
        assert active.mode == mode, f"{kind}, {what}: left {mode} for {active.mode}"
        assert view_layer.objects.active == active
        assert {o.name for o in view_layer.objects if o.select_get()} == selected
    if kind == "collection":
        return
    # a mesh is written from every mode; text, curves, empties and hidden objects alone are refused
    assert outcomes["mesh"] == "written"
    for what in ("text", "curve", "hidden", "instanced", "nothing"):
        assert outcomes[what].startswith("refused"), (what, outcomes[what])
    if kind in ("md2", "mdl"):
        assert "select at least one mesh object" in outcomes["text"]
        assert "'Text' (font)" in outcomes["text"] and f"{objects['curve'].name!r} (curve)" in outcomes["curve"]
        assert "Convert > Mesh" in outcomes["curve"] and "Make Instances Real" in outcomes["instanced"]


def test_collection_with_hidden_and_instanced_objects_exports_its_meshes(bpy_scene, tmp_path):
    bpy = bpy_scene
    objects = mode_scene(bpy)
    outcome = checked_export(bpy, "collection", tmp_path, "collection")
    assert outcome == "written"
    model = decode_md2((tmp_path / "c.md2").read_bytes())
    # the body (8 corners) and the hidden sphere (8 x 3 rings + 2 poles = 26) are the collection's meshes
    assert len(model.positions[0]) == len(objects["body"].data.vertices) + len(objects["hidden"].data.vertices)


def build_sphere(bpy, current: int):
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 10
    bpy.ops.mesh.primitive_ico_sphere_add(subdivisions=2)
    obj = bpy.context.object
    build = obj.modifiers.new("build", "BUILD")
    build.frame_start, build.frame_duration = 1, 8
    scene.frame_set(current)
    return obj


def evaluated_counts(bpy, obj, frame: float) -> tuple[int, int]:
    scene = bpy.context.scene
    whole = int(np.floor(frame))
    scene.frame_set(whole, subframe=frame - whole)
    mesh = obj.evaluated_get(bpy.context.evaluated_depsgraph_get()).to_mesh()
    counts = len(mesh.vertices), len(mesh.polygons)
    obj.evaluated_get(bpy.context.evaluated_depsgraph_get()).to_mesh_clear()
    return counts


TOPOLOGY = re.compile(r"object 'Icosphere' changes its topology during the animation: (\d+) vertices and (\d+) "
                      r"faces at frame ([\d.]+), (\d+) vertices and (\d+) faces at frame ([\d.]+)")


@pytest.mark.parametrize("current", (1, 10))
@pytest.mark.parametrize("kind,rate", (("md2", "GAME"), ("md2", "SCENE"), ("mdl", "GAME"), ("mdl", "SCENE")))
def test_build_modifier_is_refused_naming_frames_and_counts(bpy_scene, tmp_path, kind, rate, current):
    bpy = bpy_scene
    obj = build_sphere(bpy, current)
    path = tmp_path / f"s.{kind}"
    with pytest.raises(RuntimeError) as caught:
        getattr(bpy.ops.export_scene, kind)(filepath=str(path), frame_rate=rate)
    message = str(caught.value)
    assert "Traceback" not in message and not path.exists()
    assert bpy.context.scene.frame_current == current       # the export put the scene back
    found = TOPOLOGY.search(message)
    assert found, message
    first = (int(found[1]), int(found[2]))
    other = (int(found[4]), int(found[5]))
    assert float(found[3]) == current
    assert first != other
    assert evaluated_counts(bpy, obj, float(found[3])) == first
    assert evaluated_counts(bpy, obj, float(found[6])) == other


def test_build_modifier_under_actions_is_refused_too(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj = build_sphere(bpy, 10)
    obj.location.x = 0.0
    obj.keyframe_insert("location", frame=1)
    obj.location.x = 1.0
    obj.keyframe_insert("location", frame=10)
    with pytest.raises(RuntimeError) as caught:
        bpy.ops.export_scene.md2(filepath=str(tmp_path / "a.md2"), frame_source="ACTIONS")
    found = TOPOLOGY.search(str(caught.value))
    assert found and "of action" in str(caught.value), str(caught.value)
    assert evaluated_counts(bpy, obj, float(found[6])) == (int(found[4]), int(found[5]))
