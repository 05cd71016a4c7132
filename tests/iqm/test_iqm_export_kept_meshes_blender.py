"""IQM export of an edited per-mesh import (one object per IQM mesh) whose vertices are still the file's:
a weight changed on one vertex, or the export's *Scale* 2. Every corpus IQM model with meshes and a small
file built here (two meshes named ``body``, in a file ``body.iqm`` whose armature takes that name, and one
with an empty material name) come back with the file's mesh names and material names, its vertices in
its order (positions times the scale, UVs and normals compared with the file's decoded arrays) and its
very triangles (order and first corners), read from the written file; a renamed object or material
writes its new name; a moved vertex leaves its mesh to Blender's order while the other meshes keep the
file's. The small file's colour bytes come back as they were (the import shows them as sRGB, as the
engines draw them, and the export reads them so)."""
from __future__ import annotations

from importlib import import_module

import numpy as np
import pytest
from support.actions import select_only
from support.environment import corpus_params
from support.iqm_files import reference_read
from support.iqm_meshes import small_model

from formats.iqm.codec import read_iqm
from formats.iqm.records import COLOR, NORMAL, POSITION, TEXCOORD

WITH_MESHES = [p for p in corpus_params("iqm/**/*.iqm")
               if p.values[0] is None or reference_read(p.values[0].read_bytes())["meshes"]]


def _import(bpy, path):
    bpy.ops.wm.read_homefile(use_empty=True)
    assert bpy.ops.import_scene.iqm(filepath=str(path)) == {"FINISHED"}
    root = next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")
    return root, sorted((o for o in root.children if o.type == "MESH"), key=lambda o: o["iqm_mesh_index"])


def _export(bpy, extension, root, meshes, out, edit: str):
    """Export after ``edit``: ``weight`` (vertex 0 of the first mesh weighted 0.123 to its first group: no
    longer the untouched import) or ``scale`` (the export's *Scale* 2); returns the written model and the
    scale."""
    if edit == "weight":
        meshes[0].vertex_groups[0].add([0], 0.123, "REPLACE")
        assert root["iqm_digest"] != import_module(f"{extension}.common.iqm.digest").scene_digest(root)
    scale = 2.0 if edit == "scale" else 1.0
    select_only(bpy, [root, *meshes])
    assert bpy.ops.export_scene.iqm(filepath=str(out), scale=scale) == {"FINISHED"}
    return read_iqm(out.read_bytes()), scale


def _records(model) -> list[tuple[str, str, int, int, int, int]]:
    return [(model.text_at(int(m["name"])), model.text_at(int(m["material"])), int(m["first_vertex"]),
             int(m["num_vertexes"]), int(m["first_triangle"]), int(m["num_triangles"])) for m in model.meshes]


def _assert_files_vertices(out, file, scale: float, rows=slice(None), triangles=slice(None)) -> None:
    """``out``'s vertices (``rows``) are the file's in its order: positions times ``scale`` bit for bit (the
    file's own values), UVs and normals within what Blender's UVs and custom normals give back; and its
    ``triangles`` the file's, each from the same first corner."""
    np.testing.assert_array_equal(out.array(POSITION).data[rows], file.array(POSITION).data[rows] * np.float32(scale))
    np.testing.assert_allclose(out.array(TEXCOORD).data[rows], file.array(TEXCOORD).data[rows], rtol=0, atol=1e-5)
    normals = file.array(NORMAL).data[rows].astype(np.float64)
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    np.testing.assert_allclose(out.array(NORMAL).data[rows], normals, rtol=0, atol=1e-2)
    if file.array(COLOR) is not None:                       # the file's colour bytes, as the engines show them
        np.testing.assert_array_equal(out.array(COLOR).data[rows], file.array(COLOR).data[rows])
    np.testing.assert_array_equal(out.triangles[triangles], file.triangles[triangles])


@pytest.mark.parametrize("edit", ["weight", "scale"])
@pytest.mark.parametrize("path", WITH_MESHES)
def test_an_edited_import_writes_the_files_mesh_and_material_names(bpy_scene, extension, tmp_path, path, edit):
    """boots2 and microeye have two meshes ``Mesh`` (Blender names the second object ``Mesh.001``), wings two
    ``Wings``, raptor two ``Cone.007``; monocle, staff and claw a mesh named as the file (the armature takes
    the name); foxears and the second mesh of boots2 and microeye an empty material name (the material
    ``iqm``)."""
    bpy = bpy_scene
    file = read_iqm(path.read_bytes())
    root, meshes = _import(bpy, path)
    out, scale = _export(bpy, extension, root, meshes, tmp_path / "out.iqm", edit)
    assert _records(out) == _records(file)
    _assert_files_vertices(out, file, scale)


@pytest.mark.parametrize("edit", ["weight", "scale"])
def test_small_file_meshes_of_one_name_and_an_empty_material_name(bpy_scene, extension, tmp_path, edit):
    bpy = bpy_scene
    path = tmp_path / "body.iqm"
    path.write_bytes(small_model(whole=True, twin=True))
    file = read_iqm(path.read_bytes())
    assert [r[:2] for r in _records(file)] == [("body", "skin.tga"), ("head", "skin.tga"), ("body", "")]
    root, meshes = _import(bpy, path)
    assert root.name == "body" and [o.name for o in meshes] == ["body.001", "head", "body.002"]
    assert [o.active_material.name for o in meshes] == ["skin.tga", "skin.tga", "iqm"]
    out, scale = _export(bpy, extension, root, meshes, tmp_path / "out.iqm", edit)
    assert _records(out) == _records(file)
    _assert_files_vertices(out, file, scale)


def test_a_renamed_object_or_material_writes_its_new_name(bpy_scene, extension, tmp_path):
    """As MD3's export does for a surface: the file's name while the object keeps the name the import gave
    it (``body.002``) or the file's (``head`` renamed ``head.007``: Blender's suffix), the object's name once
    renamed (``hull``); the file's material name while the material is the one the import made for it."""
    bpy = bpy_scene
    path = tmp_path / "body.iqm"
    path.write_bytes(small_model(whole=True, twin=True))
    root, meshes = _import(bpy, path)
    meshes[0].name, meshes[1].name = "hull", "head.007"
    meshes[2].active_material.name = "tail_skin"
    out, _ = _export(bpy, extension, root, meshes, tmp_path / "out.iqm", "weight")
    assert [r[:2] for r in _records(out)] == [("hull", "skin.tga"), ("head", "skin.tga"), ("body", "tail_skin")]


def test_a_moved_vertex_keeps_the_files_order_and_a_deleted_face_leaves_its_mesh_to_blender(bpy_scene, extension,
                                                                                              tmp_path):
    """Body's vertex 0 moved: still the import's vertices (found by index), so the file's order and
    triangles, the moved vertex where it was moved and the others at the file's very positions. The second
    body's second face deleted: its fourth vertex is no longer written, so that mesh is Blender's (3
    vertices, 1 triangle). Head, untouched, is the file's."""
    import bmesh
    bpy = bpy_scene
    path = tmp_path / "body.iqm"
    path.write_bytes(small_model(whole=True, twin=True))
    file = read_iqm(path.read_bytes())
    root, meshes = _import(bpy, path)
    meshes[0].data.vertices[0].co.x += 0.25
    mesh = bmesh.new()
    mesh.from_mesh(meshes[2].data)
    mesh.faces.ensure_lookup_table()
    bmesh.ops.delete(mesh, geom=[mesh.faces[1]], context="FACES_ONLY")
    mesh.to_mesh(meshes[2].data)
    mesh.free()
    out, _ = _export(bpy, extension, root, meshes, tmp_path / "out.iqm", "weight")
    records = _records(out)
    assert records[:2] == _records(file)[:2] and records[2] == ("body", "", 7, 3, 3, 1)
    moved = file.array(POSITION).data[:4].copy()
    moved[0, 0] += 0.25
    np.testing.assert_allclose(out.array(POSITION).data[:1], moved[:1], rtol=0, atol=1e-5)
    np.testing.assert_array_equal(out.array(POSITION).data[1:4], moved[1:4])
    np.testing.assert_array_equal(out.triangles[:2], file.triangles[:2])
    _assert_files_vertices(out, file, 1.0, slice(4, 7), slice(2, 3))
    kept_face = file.triangles[3]                           # the second body's first triangle, in Blender's order
    np.testing.assert_allclose(np.sort(out.array(POSITION).data[7:10], axis=0),
                               np.sort(file.array(POSITION).data[kept_face], axis=0), rtol=0, atol=1e-5)
