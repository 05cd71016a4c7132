"""An imported model whose vertices did not move keeps the file's normals (the file comes back byte for
byte) only while it is lit as the import left it: with its custom normals cleared, or a modifier that
sets normals, the export writes the normals Blender shows (each vertex's corner normals averaged by
corner angle) and says so. Flat shading alone leaves those vertex normals, and the file, as they were."""
from __future__ import annotations

import numpy as np
import pytest
from support.operators import extension_module

from formats.anorms import anorms
from formats.md2.codec import parse_md2
from formats.md3.codec import read_md3
from formats.md3.vertices import NORMAL_STEP_RADIANS, decode_normals
from formats.mdl.codec import parse_mdl

EDITED = "was edited since the import"
IMPORT_SHADING = "import_shading"     # common/contract.py: the vertex normals the import left
TIE = 1e-3          # a written anorm counts as nearest when its dot product is this close to the best


def _tilted_monkey(bpy):
    """Smooth Suzanne whose custom normals lean up to about 35 degrees off Blender's own, one frame."""
    bpy.ops.mesh.primitive_monkey_add()
    obj = bpy.context.object
    bpy.ops.object.shade_smooth()
    mesh = obj.data
    normals = np.empty(len(mesh.vertices) * 3, np.float32)
    mesh.vertex_normals.foreach_get("vector", normals)
    normals = normals.reshape(-1, 3) + np.random.default_rng(5).uniform(-0.6, 0.6, (len(mesh.vertices), 3))
    mesh.normals_split_custom_set_from_vertices([tuple(n / np.linalg.norm(n)) for n in normals])
    bpy.context.scene.frame_start = bpy.context.scene.frame_end = 1
    return obj


def _export(bpy, fmt: str, objects, path) -> bytes:
    for other in bpy.context.view_layer.objects:
        other.select_set(other in objects)
    extra = {"skins": "NAMES"} if fmt == "md2" else {}
    assert getattr(bpy.ops.export_scene, fmt)(filepath=str(path), frame_rate="SCENE", **extra) == {"FINISHED"}
    return path.read_bytes()


def _made_and_imported(bpy, tmp_path, fmt: str, **options):
    """A tilted Suzanne written as ``fmt``, the scene emptied and the file imported: (bytes, meshes)."""
    obj = _tilted_monkey(bpy)
    data = _export(bpy, fmt, [obj], tmp_path / f"made.{fmt}")
    bpy.ops.wm.read_homefile(use_empty=True)
    assert getattr(bpy.ops.import_scene, fmt)(filepath=str(tmp_path / f"made.{fmt}"), **options) == {"FINISHED"}
    return data, [o for o in bpy.context.scene.objects if o.type == "MESH"]


def _clear_custom_normals(bpy, obj) -> None:
    bpy.context.view_layer.objects.active = obj
    assert obj.data.has_custom_normals
    bpy.ops.mesh.customdata_custom_splitnormals_clear()
    assert not obj.data.has_custom_normals


def _blender_vertex_normals(bpy, obj) -> np.ndarray:
    """(V, 3) each evaluated vertex's corner normals averaged by corner angle (object at the origin, unturned)."""
    bpy.context.view_layer.update()
    obj_eval = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    mesh = obj_eval.to_mesh()
    try:
        def read(collection, attribute, width, dtype):
            values = np.empty(len(collection) * width, dtype)
            collection.foreach_get(attribute, values)
            return values.reshape(-1, width) if width > 1 else values
        co = read(mesh.vertices, "co", 3, np.float32).astype(np.float64)
        corner = read(mesh.corner_normals, "vector", 3, np.float32).astype(np.float64)
        vertex = read(mesh.loops, "vertex_index", 1, np.int32)
        start = read(mesh.polygons, "loop_start", 1, np.int32)
        size = read(mesh.polygons, "loop_total", 1, np.int32)
    finally:
        obj_eval.to_mesh_clear()
    total = np.zeros_like(co)
    for first, count in zip(start, size):
        loops = first + np.arange(count)
        for k, loop in enumerate(loops):
            here = co[vertex[loop]]
            a, b = co[vertex[loops[k - 1]]] - here, co[vertex[loops[(k + 1) % count]]] - here
            angle = np.arccos(np.clip(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)), -1.0, 1.0))
            total[vertex[loop]] += corner[loop] * angle
    return total / np.linalg.norm(total, axis=1, keepdims=True)


def _degrees(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.degrees(np.arccos(np.clip(np.einsum("ij,ij->i", a, b), -1.0, 1.0)))


def _decoded(packed: np.ndarray) -> np.ndarray:
    """MD3 normals as unit vectors (the engine's sine table gives them a little off unit length)."""
    normals = decode_normals(packed).astype(np.float64)
    return normals / np.linalg.norm(normals, axis=1, keepdims=True)


def _nearest_share(indices: np.ndarray, normals: np.ndarray) -> float:
    dots = normals @ anorms().astype(np.float64).T
    return float(np.mean(dots[np.arange(len(dots)), indices] >= dots.max(axis=1) - TIE))


def test_md3_with_its_custom_normals_cleared_is_lit_as_blender_shows_it(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    made, (obj,) = _made_and_imported(bpy, tmp_path, "md3")
    assert _export(bpy, "md3", [obj], tmp_path / "untouched.md3") == made
    _clear_custom_normals(bpy, obj)
    capfd.readouterr()
    written = read_md3(_export(bpy, "md3", [obj], tmp_path / "cleared.md3"))
    assert EDITED in capfd.readouterr().out
    original = read_md3(made)
    assert np.array_equal(written.surfaces[0].xyz, original.surfaces[0].xyz)
    expected = _blender_vertex_normals(bpy, obj)
    assert _degrees(_decoded(original.surfaces[0].normal[0]), expected).max() > 10
    assert _degrees(_decoded(written.surfaces[0].normal[0]), expected).max() <= np.degrees(NORMAL_STEP_RADIANS)


@pytest.mark.parametrize("fmt", ("md2", "mdl"))
def test_cleared_file_normals_give_blenders_normals(bpy_scene, tmp_path, capfd, fmt):
    bpy = bpy_scene
    made, (obj,) = _made_and_imported(bpy, tmp_path, fmt, use_file_normals=True)
    assert _export(bpy, fmt, [obj], tmp_path / f"untouched.{fmt}") == made
    _clear_custom_normals(bpy, obj)
    capfd.readouterr()
    data = _export(bpy, fmt, [obj], tmp_path / f"cleared.{fmt}")
    assert EDITED in capfd.readouterr().out
    model, original = (parse_md2(data), parse_md2(made)) if fmt == "md2" else (parse_mdl(data), parse_mdl(made))
    indices = model.frame_normals[0] if fmt == "md2" else model.pose_normals[0]
    before = original.frame_normals[0] if fmt == "md2" else original.pose_normals[0]
    expected = _blender_vertex_normals(bpy, obj)
    count = len(expected)            # MDL's copies at UV seams come after the mesh's vertices
    assert _nearest_share(before[:count], expected) < 0.8
    assert _nearest_share(indices[:count], expected) == 1.0


def test_a_modifier_that_sets_normals_counts_as_an_edit(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    made, (obj,) = _made_and_imported(bpy, tmp_path, "mdl")
    modifier = obj.modifiers.new("weighted", "WEIGHTED_NORMAL")
    modifier.weight = 100
    capfd.readouterr()
    model = parse_mdl(_export(bpy, "mdl", [obj], tmp_path / "weighted.mdl"))
    assert EDITED in capfd.readouterr().out
    expected = _blender_vertex_normals(bpy, obj)
    assert np.array_equal(model.pose_verts, parse_mdl(made).pose_verts)
    assert _nearest_share(model.pose_normals[0][:len(expected)], expected) == 1.0


@pytest.mark.parametrize("fmt", ("md2", "mdl", "md3"))
def test_flat_shading_or_an_old_import_keeps_the_file(bpy_scene, tmp_path, capfd, fmt):
    """Flat faces on a mesh without custom normals leave each vertex's mean as it was; a mesh imported
    before the record was kept (none on it) writes the file's normals back, whatever its shading."""
    bpy = bpy_scene
    options = {"md3_file_normals": False} if fmt == "md3" else {}
    made, meshes = _made_and_imported(bpy, tmp_path, fmt, **options)
    for obj in meshes:
        obj.data.polygons.foreach_set("use_smooth", np.zeros(len(obj.data.polygons), bool))
        obj.data.update()
    capfd.readouterr()
    assert _export(bpy, fmt, meshes, tmp_path / f"flat.{fmt}") == made
    assert EDITED not in capfd.readouterr().out
    for obj in meshes:
        bpy.context.view_layer.objects.active = obj
        bpy.ops.mesh.customdata_custom_splitnormals_add()
        del obj.data[IMPORT_SHADING]
    assert _export(bpy, fmt, meshes, tmp_path / f"old.{fmt}") == made


def test_vertex_means_leave_back_to_back_faces_out_and_compare_within_two_steps(extension):
    """The record's arithmetic on arrays: a vertex's corner (or face) normals averaged by corner angle,
    polygons found by their first corner wherever it lies; faces back to back on the same vertices cancel
    and are left 0 (not compared); a move of 2/127 on an axis is the same shading, 3/127 an edit,
    another vertex count an edit."""
    shading = extension_module(extension, "common.import_shading")
    co = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], np.float64)
    up = np.array([0.0, 0.0, 1.0])
    fan = shading.vertex_means(co, [0, 1, 2], [0], [3], corner=np.tile(up, (3, 1)))
    assert fan[:3].tolist() == [[0, 0, 127]] * 3 and fan[3].tolist() == [0, 0, 0]
    back_to_back = shading.vertex_means(co, [0, 1, 2, 0, 2, 1], [0, 3], [3, 3], polygon=np.stack([up, -up]))
    assert not back_to_back.any()
    # a quad (corners 3-6) stored after a triangle (corners 0-2), listed first: the quad's corners at
    # vertex 0 and 3 weigh its normal by 90 degrees each, the triangle's by 45 and 90
    square = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1]], np.float64)
    side, floor = np.array([0.0, -1.0, 0.0]), np.array([0.0, 0.0, 1.0])
    mixed = shading.vertex_means(square, [0, 1, 4, 0, 1, 2, 3], [3, 0], [4, 3], polygon=np.stack([floor, side]))
    expected = np.stack([floor * np.pi / 2 + side * np.pi / 2, floor * np.pi / 2 + side * np.pi / 4,
                         floor, floor, side])
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert np.array_equal(mixed, np.rint(expected * 127).astype(np.int8))
    before = np.array([[0, 0, 127], [0, 90, 90]], np.int8)
    assert shading.same_shading(before, before + np.array([[2, 0, -2], [0, 0, 0]], np.int8))
    assert not shading.same_shading(before, before + np.array([[0, 0, 0], [3, 0, 0]], np.int8))
    assert shading.same_shading(np.array([[0, 0, 0], [0, 90, 90]], np.int8), np.array([[90, 0, 90], [0, 90, 90]], np.int8))
    assert not shading.same_shading(before, before[:1])
