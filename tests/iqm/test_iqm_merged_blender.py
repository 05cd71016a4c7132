"""IQM import with *Merge Meshes* (``merge_meshes``): one mesh object for all of a file's meshes, mesh s in
material slot s, holding what the per-mesh import gives each mesh object (positions, faces, UVs, custom
normals, colours, weights; positions also against a struct reading of the file); an untouched merged
import exports the file byte for byte (every corpus IQM model); an edited one writes the file's meshes
again, slot s as the file's mesh s with its name and material, the same bytes as the edited per-mesh
import (the file's vertex order and triangles while the vertices are the import's)."""
from __future__ import annotations

import numpy as np
import pytest
from support.actions import select_only
from support.blender_helpers import corner_uvs, polygon_vertices
from support.environment import corpus_params
from support.iqm_files import reference_read
from support.iqm_meshes import small_model

from formats.iqm.codec import read_iqm
from formats.iqm.records import POSITION

IQM_FILES = corpus_params("iqm/**/*.iqm")
SEVERAL = [p for p in IQM_FILES if p.values[0] is None or len(reference_read(p.values[0].read_bytes())["meshes"]) > 1]


def _import(bpy, path, merge: bool):
    bpy.ops.wm.read_homefile(use_empty=True)
    assert bpy.ops.import_scene.iqm(filepath=str(path), merge_meshes=merge) == {"FINISHED"}
    root = next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")
    return root, sorted((o for o in root.children if o.type == "MESH"), key=lambda o: o["iqm_mesh_index"])


def _vector(collection, attribute: str, width: int) -> np.ndarray:
    out = np.zeros(len(collection) * width, np.float32)
    collection.foreach_get(attribute, out)
    return out.reshape(-1, width)


def _fields(obj) -> dict:
    """What the import gave a mesh object, per vertex and per corner (polygon order)."""
    mesh = obj.data
    colours = mesh.color_attributes.get("Color")
    return {"positions": _vector(mesh.vertices, "co", 3), "faces": polygon_vertices(mesh), "uvs": corner_uvs(mesh),
            "normals": _vector(mesh.corner_normals, "vector", 3).reshape(-1, 3, 3),
            "colours": None if colours is None else _vector(colours.data, "color", 4),
            "weights": [{obj.vertex_groups[e.group].name: round(e.weight, 6) for e in v.groups} for v in mesh.vertices],
            "materials": [m.name if m is not None else None for m in mesh.materials]}


def _slot(fields: dict, slots: np.ndarray, s: int, first: int, count: int) -> dict:
    """The merged mesh's part of slot ``s``: vertices ``first`` on, faces of slot s (numbered from ``first``)
    with their corners' UVs and normals."""
    faces = slots == s
    return {"positions": fields["positions"][first:first + count], "faces": fields["faces"][faces] - first,
            "uvs": fields["uvs"][faces], "normals": fields["normals"][faces],
            "colours": None if fields["colours"] is None else fields["colours"][first:first + count],
            "weights": fields["weights"][first:first + count], "materials": [fields["materials"][s]]}


def _compare_with_per_mesh(bpy, path):
    ref = reference_read(path.read_bytes())
    _, meshes = _import(bpy, path, False)
    per_mesh = [_fields(o) for o in meshes]
    root, merged = _import(bpy, path, True)
    (obj,) = merged
    assert obj.name == f"{path.stem}_meshes" and obj["iqm_merged_meshes"] == len(ref["meshes"])
    assert obj.parent == root and [(m.type, m.object) for m in obj.modifiers] == [("ARMATURE", root)]
    fields = _fields(obj)
    slots = np.zeros(len(obj.data.polygons), np.int32)
    obj.data.polygons.foreach_get("material_index", slots)
    assert len(fields["materials"]) == len(ref["meshes"]) and (np.diff(slots) >= 0).all()
    positions = np.array({a["type"]: a["rows"] for a in ref["arrays"]}[0], np.float32)
    first = 0
    for s, (expected, record) in enumerate(zip(per_mesh, ref["meshes"])):
        got = _slot(fields, slots, s, first, record[3])
        np.testing.assert_array_equal(got["positions"], positions[record[2]:record[2] + record[3]])
        for key in ("positions", "faces", "uvs", "normals"):
            np.testing.assert_array_equal(got[key], expected[key], err_msg=f"mesh {s} {key}")
        assert (got["colours"] is None) == (expected["colours"] is None)
        if got["colours"] is not None:
            np.testing.assert_array_equal(got["colours"], expected["colours"])
        assert got["weights"] == expected["weights"] and got["materials"] == expected["materials"], s
        first += record[3]
    assert first == len(obj.data.vertices)


def test_merged_small_file_holds_what_the_per_mesh_import_gives_each_mesh(bpy_scene, tmp_path):
    bpy = bpy_scene
    path = tmp_path / "small.iqm"
    path.write_bytes(small_model())
    _compare_with_per_mesh(bpy, path)
    root, (obj,) = _import(bpy, path, True)
    assert [m.name for m in obj.data.materials] == ["skin.tga", "skin.tga", "iqm"]
    assert len(obj.data.polygons) == 5                      # head's triangle using a vertex twice has no face


@pytest.mark.parametrize("path", SEVERAL)
def test_merged_corpus_file_holds_what_the_per_mesh_import_gives_each_mesh(bpy_scene, path):
    _compare_with_per_mesh(bpy_scene, path)


@pytest.mark.parametrize("path", IQM_FILES)
def test_every_corpus_model_merged_exports_byte_for_byte(bpy_scene, tmp_path, path):
    bpy = bpy_scene
    root, meshes = _import(bpy, path, True)
    assert len(meshes) == min(len(reference_read(path.read_bytes())["meshes"]), 1)
    select_only(bpy, [root, *meshes])
    assert bpy.ops.export_scene.iqm(filepath=str(tmp_path / "out.iqm")) == {"FINISHED"}
    assert (tmp_path / "out.iqm").read_bytes() == path.read_bytes()


def test_small_file_merged_exports_byte_for_byte_and_a_face_moved_to_another_slot_is_an_edit(bpy_scene, tmp_path,
                                                                                              extension):
    from importlib import import_module
    write_back = import_module(f"{extension}.exporters.iqm.write_back")
    bpy = bpy_scene
    path = tmp_path / "small.iqm"
    path.write_bytes(small_model())
    root, meshes = _import(bpy, path, True)
    select_only(bpy, [root, *meshes])
    assert bpy.ops.export_scene.iqm(filepath=str(tmp_path / "out.iqm")) == {"FINISHED"}
    assert (tmp_path / "out.iqm").read_bytes() == path.read_bytes()
    assert write_back.untouched(root, [root, *meshes]) is not None
    meshes[0].data.polygons[0].material_index = 1
    assert write_back.untouched(root, [root, *meshes]) is None


def _edited_export(bpy, path, out, merge: bool, edit: str) -> bytes:
    root, meshes = _import(bpy, path, merge)
    if edit == "vertex":
        meshes[0].data.vertices[0].co.x += 0.25
    else:                       # a weight: the vertices are still the file's
        meshes[0].vertex_groups[0].add([0], 0.5, "REPLACE")
    select_only(bpy, [root, *meshes])
    assert bpy.ops.export_scene.iqm(filepath=str(out)) == {"FINISHED"}
    return out.read_bytes()


def _names(model) -> list[tuple[str, str, int, int, int, int]]:
    return [(model.text_at(int(m["name"])), model.text_at(int(m["material"])), int(m["first_vertex"]),
             int(m["num_vertexes"]), int(m["first_triangle"]), int(m["num_triangles"])) for m in model.meshes]


@pytest.mark.parametrize("edit", ["vertex", "weight"])
@pytest.mark.parametrize("path", SEVERAL + [pytest.param("small", id="small")])
def test_edited_merged_export_writes_the_files_meshes_as_the_per_mesh_one(bpy_scene, tmp_path, path, edit):
    """Slot s is written as the file's mesh s (its name and material), as the per-mesh export writes it: the
    same bytes, with the file's triangles; with a weight changed, the file's very positions."""
    bpy = bpy_scene
    small = path == "small"
    if small:
        path = tmp_path / "small.iqm"
        path.write_bytes(small_model(whole=True))
    per_mesh = read_iqm(_edited_export(bpy, path, tmp_path / "per_mesh.iqm", False, edit))
    merged_data = _edited_export(bpy, path, tmp_path / "merged.iqm", True, edit)
    merged, file = read_iqm(merged_data), read_iqm(path.read_bytes())
    assert _names(merged) == _names(file)                   # names, materials, every vertex and triangle again
    assert _names(per_mesh) == _names(file)
    assert merged_data == (tmp_path / "per_mesh.iqm").read_bytes()
    np.testing.assert_array_equal(merged.triangles, file.triangles)
    if edit == "weight":
        np.testing.assert_array_equal(merged.array(POSITION).data, file.array(POSITION).data)


def test_game_archive_import_merges_with_the_option_and_exports_the_member_back(bpy_scene, tmp_path):
    """The Game Archive dialog shares the option (its IQM group): a ``.pk3`` member imported merged."""
    import zipfile

    from support.operators import import_members
    bpy = bpy_scene
    data = small_model()
    archive = tmp_path / "models.pk3"
    with zipfile.ZipFile(archive, "w") as pk3:
        pk3.writestr("models/m/small.iqm", data)
    assert import_members(bpy, archive, ["models/m/small.iqm"], merge_meshes=True) == {"FINISHED"}
    root = next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")
    (obj,) = root.children
    assert obj.name == "small_meshes" and len(obj.data.materials) == 3
    select_only(bpy, [root, obj])
    assert bpy.ops.export_scene.iqm(filepath=str(tmp_path / "out.iqm")) == {"FINISHED"}
    assert (tmp_path / "out.iqm").read_bytes() == data


def test_a_slot_whose_material_was_renamed_writes_the_new_name(bpy_scene, tmp_path):
    """Slot 2's material (made ``iqm`` for the tail's empty name) renamed: that mesh's material is the new
    name, the others keep the file's (``skin.tga``); every mesh keeps the file's name."""
    bpy = bpy_scene
    path = tmp_path / "small.iqm"
    path.write_bytes(small_model(whole=True))
    root, (obj,) = _import(bpy, path, True)
    obj.data.materials[2].name = "tail_skin"
    select_only(bpy, [root, obj])
    assert bpy.ops.export_scene.iqm(filepath=str(tmp_path / "out.iqm")) == {"FINISHED"}
    assert [n[:2] for n in _names(read_iqm((tmp_path / "out.iqm").read_bytes()))] == [
        ("body", "skin.tga"), ("head", "skin.tga"), ("tail", "tail_skin")]
