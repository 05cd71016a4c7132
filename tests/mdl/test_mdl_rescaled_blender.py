"""An imported MDL scaled or moved as a whole keeps its bytes (MDL's one grid follows the bounds), but
not always its shape: squashed along one axis, the same bytes make a flatter model whose normals lean
as Blender shows them; scaled evenly or moved, the imported normals still hold, while the header's
bounding radius and size (lengths from the origin, triangle areas) change with it."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from support.mdl_models import grouped_mdl
from support.operators import export_mdl, extension_module, import_mdl

from formats.anorms import anorms
from formats.mdl.codec import parse_mdl, serialize_mdl

TIE = 1e-3          # a written index counts as nearest when its dot product is this close to the best


def _imported_monkey(bpy, tmp_path):
    """Smooth Suzanne written as an MDL, the scene emptied, the file imported: (its bytes, the object)."""
    bpy.ops.mesh.primitive_monkey_add()
    obj = bpy.context.object
    bpy.ops.object.shade_smooth()
    scene = bpy.context.scene
    scene.frame_start = scene.frame_end = 1
    data = export_mdl(bpy, obj, tmp_path / "monkey.mdl", frame_rate="SCENE")
    bpy.ops.wm.read_homefile(use_empty=True)
    return data, import_mdl(bpy, tmp_path / "monkey.mdl")


def _blender_vertex_normals(bpy, obj) -> tuple[np.ndarray, np.ndarray]:
    """World positions and normals of the evaluated mesh's vertices as Blender reports them: the mean of
    each vertex's corner normals (custom ones, from the import) weighted by the corner angles (Blender 5's
    vertex normal of such a mesh), through the normal matrix."""
    bpy.context.view_layer.update()
    obj_eval = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    mesh = obj_eval.to_mesh()
    try:
        co = np.empty(len(mesh.vertices) * 3, np.float32)
        mesh.vertices.foreach_get("co", co)
        corner = np.empty(len(mesh.loops) * 3, np.float32)
        mesh.corner_normals.foreach_get("vector", corner)
        vertex = np.empty(len(mesh.loops), np.int32)
        mesh.loops.foreach_get("vertex_index", vertex)
        start = np.empty(len(mesh.polygons), np.int32)
        size = np.empty(len(mesh.polygons), np.int32)
        mesh.polygons.foreach_get("loop_start", start)
        mesh.polygons.foreach_get("loop_total", size)
    finally:
        obj_eval.to_mesh_clear()
    local = co.reshape(-1, 3).astype(np.float64)
    first = np.repeat(start, size)
    within = np.arange(len(vertex)) - first
    length = np.repeat(size, size)
    to_prev = local[vertex[first + (within - 1) % length]] - local[vertex]
    to_next = local[vertex[first + (within + 1) % length]] - local[vertex]
    cos = np.einsum("ij,ij->i", to_prev, to_next) / (np.linalg.norm(to_prev, axis=1) * np.linalg.norm(to_next, axis=1))
    total = np.zeros_like(local)
    np.add.at(total, vertex, corner.reshape(-1, 3).astype(np.float64) * np.arccos(np.clip(cos, -1.0, 1.0))[:, None])
    matrix = np.array(obj.matrix_world, np.float64)
    normals = total @ np.linalg.inv(matrix[:3, :3])
    return local @ matrix[:3, :3].T + matrix[:3, 3], normals / np.linalg.norm(normals, axis=1, keepdims=True)


def _nearest_share(indices: np.ndarray, normals: np.ndarray) -> float:
    """The share of ``indices`` that are the anorm nearest to ``normals`` (within TIE)."""
    dots = normals @ anorms().astype(np.float64).T
    return float(np.mean(dots[np.arange(len(dots)), indices] >= dots.max(axis=1) - TIE))


def test_squashed_model_is_lit_as_blender_shades_it(bpy_scene, tmp_path):
    bpy = bpy_scene
    before, obj = _imported_monkey(bpy, tmp_path)
    obj.scale = (1.0, 1.0, 0.4)
    model = parse_mdl(export_mdl(bpy, obj, tmp_path / "squashed.mdl", frame_rate="SCENE"))
    original = parse_mdl(before)
    assert np.array_equal(model.pose_verts, original.pose_verts), "the squash should leave the bytes as they were"
    world, normals = _blender_vertex_normals(bpy, obj)
    positions = model.positions()[0].astype(np.float64)
    distance = np.linalg.norm(positions[:, None] - world[None], axis=2)
    source = np.argmin(distance, axis=1)
    assert np.linalg.norm(positions - world[source], axis=1).max() <= np.linalg.norm(model.scale), \
        "every written vertex lies on one of Blender's"
    # the import keeps UV-seam copies as vertices of their own, each shaded by its own corners in Blender,
    # where the file lights every copy of a vertex alike: only the vertices without copies are compared
    alone = np.sum(distance <= np.linalg.norm(model.scale), axis=1) == 1
    assert alone.sum() > 0.75 * len(alone)
    assert _nearest_share(original.pose_normals[0][alone], normals[source[alone]]) < 0.8, \
        "the squash should turn the normals away from the imported ones"
    assert _nearest_share(model.pose_normals[0][alone], normals[source[alone]]) == 1.0
    radius = np.linalg.norm(np.maximum(np.abs(positions.min(axis=0)), np.abs(positions.max(axis=0))))
    assert model.bounding_radius == pytest.approx(radius, abs=float(np.linalg.norm(model.scale)))
    assert model.bounding_radius < 0.9 * original.bounding_radius


@pytest.mark.parametrize("scale, move", [(2.0, (0.0, 0.0, 0.0)), (1.0, (3.0, -1.0, 2.0)), (0.5, (1.0, 1.0, 1.0))],
                         ids=("scaled", "moved", "scaled-and-moved"))
def test_evenly_scaled_or_moved_model_keeps_its_normals_with_new_bounds(bpy_scene, tmp_path, scale, move):
    bpy = bpy_scene
    before, obj = _imported_monkey(bpy, tmp_path)
    obj.scale = (scale,) * 3
    obj.location = move
    model = parse_mdl(export_mdl(bpy, obj, tmp_path / "scaled.mdl", frame_rate="SCENE"))
    original = parse_mdl(before)
    assert np.array_equal(model.pose_verts, original.pose_verts)
    assert np.array_equal(model.pose_normals, original.pose_normals)
    positions = model.positions()[0].astype(np.float64)
    corner = np.maximum(np.abs(positions.min(axis=0)), np.abs(positions.max(axis=0)))
    assert model.bounding_radius == pytest.approx(np.linalg.norm(corner), abs=float(np.linalg.norm(model.scale)))
    if not any(move):
        assert model.bounding_radius == pytest.approx(scale * original.bounding_radius, rel=1e-5)
        assert model.size == pytest.approx(scale * scale * original.size, rel=1e-2)    # (the file's from its unrounded positions)


def test_a_flat_model_comes_back_byte_for_byte(bpy_scene, tmp_path):
    """A model flat on one axis (id's modelgen writes a step of 0 there) keeps its grid, and with it its
    normals, boxes, radius and size: the untouched file comes back whole."""
    bpy = bpy_scene
    model = grouped_mdl()
    verts = model.pose_verts.copy()
    verts[..., 2] = 0
    flat = replace(model, scale=np.array([0.5, 0.5, 0.0], np.float32), pose_verts=verts)
    data = serialize_mdl(flat)
    (tmp_path / "flat.mdl").write_bytes(data)
    obj = import_mdl(bpy, tmp_path / "flat.mdl")
    assert export_mdl(bpy, obj, tmp_path / "back.mdl") == data


def test_same_shape_compares_the_steps_of_the_axes_that_have_one(extension):
    build = extension_module(extension, "exporters.mdl.grid_shape")
    imported = (np.array([0.5, 0.25, 0.0], np.float32), np.zeros(3, np.float32))
    assert build.same_shape(np.array([0.5, 0.25, 0.0], np.float32), imported)
    assert build.same_shape(np.array([1.0, 0.5, 0.0], np.float32), imported)           # twice as big, still flat
    assert not build.same_shape(np.array([1.0, 0.25, 0.0], np.float32), imported)      # stretched along x
    assert not build.same_shape(np.array([1.0, 0.5, 0.1], np.float32), imported)       # no longer flat
    assert build.same_shape(np.zeros(3, np.float32), (np.zeros(3, np.float32), np.zeros(3, np.float32)))  # a point, kept
    assert not build.same_shape(np.array([0.5, 0.25, 0.0], np.float32), None)
