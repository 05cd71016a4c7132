"""MD3 import with *Merge Surfaces*: one mesh object for all of a file's surfaces, each surface a material
slot (its shader kept), frames as shape keys on the timeline, tags as empties; an untouched export of
every corpus MD3 so imported gives the file back byte for byte (the surfaces found again by their kept
records and slots, never by Blender names), and the merged mesh's vertices are the codec's at every frame."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.blender_helpers import key_positions
from support.environment import CORPUS, corpus_params

from formats.md3.codec import read_md3, write_md3
from formats.md3.records import Md3Model, Md3Shader, Md3Surface
from formats.md3.skin_file import parse_skin
from formats.md3.vertices import decode_xyz

FILES = corpus_params("md3/**/*.md3")
PLAYERS = CORPUS / "md3" / "openarena081" / "models" / "players"


def merged_import(bpy, path: Path, **options):
    assert bpy.ops.import_scene.md3(filepath=str(path), merge_surfaces=True, **options) == {"FINISHED"}
    roots = [o for o in bpy.data.objects if o.get("md3_root") is not None and o.get("source_file") == str(path)]
    assert len(roots) == 1
    return roots[0]


def meshes_of(root) -> list:
    return [c for c in root.children if c.type == "MESH"]


@pytest.mark.parametrize("path", FILES)
def test_merged_import_exports_byte_for_byte(bpy_scene, tmp_path, path):
    bpy = bpy_scene
    root = merged_import(bpy, path)
    model = read_md3(path.read_bytes())
    meshes = meshes_of(root)
    assert len(meshes) == (1 if model.surfaces else 0)
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == root)
    out = tmp_path / path.name
    assert bpy.ops.export_scene.md3(filepath=str(out)) == {"FINISHED"}
    assert out.read_bytes() == path.read_bytes()


@pytest.mark.parametrize("path", FILES)
def test_merged_mesh_holds_every_surface(bpy_scene, path):
    """Vertices of every frame are the codec's surfaces one after the other; faces of surface s are in
    material slot s, whose material stands for the surface's shader."""
    bpy = bpy_scene
    root = merged_import(bpy, path)
    model = read_md3(path.read_bytes())
    if not model.surfaces:
        pytest.skip(f"{path.name} has no surfaces (tags only): nothing to merge")
    (obj,) = meshes_of(root)
    mesh = obj.data
    expected = np.concatenate([decode_xyz(s.xyz) for s in model.surfaces], axis=1)    # (F, V, 3)
    assert len(mesh.vertices) == expected.shape[1]
    blocks = obj.data.shape_keys.key_blocks
    assert len(blocks) == model.num_frames + 1
    for f in range(model.num_frames):
        np.testing.assert_allclose(key_positions(obj, blocks[f + 1].name), expected[f], atol=1e-6)
    scene = bpy.context.scene
    for f in sorted({0, model.num_frames // 2, model.num_frames - 1}):     # what the timeline shows
        scene.frame_set(root.classic_model.frame_offset + f)
        shown = obj.evaluated_get(bpy.context.evaluated_depsgraph_get()).data
        co = np.empty(len(shown.vertices) * 3, np.float32)
        shown.vertices.foreach_get("co", co)
        np.testing.assert_allclose(co.reshape(-1, 3), expected[f], atol=1e-5)
    faced = [int(sum(len(set(t)) == 3 for t in np.asarray(s.triangles).reshape(-1, 3))) for s in model.surfaces]
    slots = np.zeros(len(mesh.polygons), np.int32)
    mesh.polygons.foreach_get("material_index", slots)
    assert slots.tolist() == [s for s, n in enumerate(faced) for _ in range(n)]
    assert len(mesh.materials) == len(model.surfaces)
    for material, surface in zip(mesh.materials, model.surfaces):
        assert material["md3_shader"] == (surface.shaders[0].name if surface.shaders else "")


def test_merged_player_switches_skin_sets_by_slot_and_still_exports_its_file(bpy_scene, tmp_path):
    """An assembled player imported merged: the sidebar's skin set gives each slot the set's shader for
    its surface (found by the kept header, not the material's name); the file is still written back."""
    bpy = bpy_scene
    folder = PLAYERS / "major"
    if not folder.is_dir():
        pytest.skip(f"OpenArena's major player not in the corpus ({folder})")
    assert bpy.ops.import_scene.md3(filepath=str(folder / "lower.md3"), merge_surfaces=True) == {"FINISHED"}
    roots = {o["md3_root"]: o for o in bpy.data.objects if o.get("md3_root") is not None}
    assert set(roots) == {"lower", "upper", "head"}
    upper = roots["upper"]
    (mesh,) = meshes_of(upper)
    model = read_md3((folder / "upper.md3").read_bytes())
    skin = parse_skin((folder / "upper_red.skin").read_bytes())
    bpy.context.view_layer.objects.active = mesh
    assert bpy.ops.classic_models.md3_skin_set(set_name="red") == {"FINISHED"}
    assert upper["md3_skin_set"] == "red"
    for material, surface in zip(mesh.data.materials, model.surfaces):
        assert material["md3_skin_shader"] == (skin.shader_for(surface.name) or "")
        assert material["md3_shader"] == (surface.shaders[0].name if surface.shaders else "")
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == upper)
    out = tmp_path / "upper.md3"
    assert bpy.ops.export_scene.md3(filepath=str(out)) == {"FINISHED"}
    assert out.read_bytes() == (folder / "upper.md3").read_bytes()


def small_model() -> bytes:
    """Two frames, a tag and three surfaces: one with a triangle using a vertex twice and a vertex no
    triangle uses, one empty (no vertices, no triangles), one plain; built with the codec's writer."""
    rng = np.random.default_rng(31)

    def surface(name, shader, triangles, verts):
        return Md3Surface(name=name, shaders=[Md3Shader(shader)] if shader is not None else [],
                          triangles=np.asarray(triangles, np.int32).reshape(-1, 3),
                          st=rng.random((verts, 2)).astype(np.float32),
                          xyz=rng.integers(-3000, 3000, (2, verts, 3)).astype(np.int16),
                          normal=rng.integers(0, 65535, (2, verts)).astype(np.uint16))

    surfaces = [surface("hull", "models/s/hull.tga", [(0, 1, 2), (2, 2, 3), (1, 3, 2)], 5),
                surface("nothing", None, [], 0),
                surface("fin", "models/s/fin", [(0, 1, 2)], 3)]
    axis = np.broadcast_to(np.eye(3, dtype=np.float32), (2, 1, 3, 3)).copy()
    model = Md3Model(name="models/s/ship.md3", frame_names=["idle1", "idle2"],
                     frame_bounds=np.zeros((2, 2, 3), np.float32), frame_origin=np.zeros((2, 3), np.float32),
                     frame_radius=np.ones(2, np.float32), tag_names=["tag_flag"],
                     tag_origin=rng.random((2, 1, 3)).astype(np.float32), tag_axis=axis, surfaces=surfaces)
    return write_md3(model)


@pytest.mark.parametrize("load_skins", [True, False])
def test_merged_small_model_with_odd_surfaces_exports_byte_for_byte(bpy_scene, tmp_path, load_skins):
    bpy = bpy_scene
    path = tmp_path / "in" / "ship.md3"
    path.parent.mkdir()
    path.write_bytes(small_model())
    root = merged_import(bpy, path, load_skins=load_skins)
    (obj,) = meshes_of(root)
    assert len(obj.data.vertices) == 8 and len(obj.data.polygons) == 3       # the degenerate one kept aside
    assert [c.name for c in root.children if c.type == "EMPTY"] == ["tag_flag"]
    for each in bpy.context.view_layer.objects:
        each.select_set(each == root)
    out = tmp_path / "ship.md3"
    assert bpy.ops.export_scene.md3(filepath=str(out)) == {"FINISHED"}
    assert out.read_bytes() == path.read_bytes()


def test_an_edited_merged_mesh_is_written_per_material(bpy_scene, tmp_path):
    """A face of one slot moved onto another surface's vertices: the mesh no longer is the surfaces it
    was imported from, so the export writes one surface per material instead of the kept records."""
    bpy = bpy_scene
    path = tmp_path / "in" / "ship.md3"
    path.parent.mkdir()
    path.write_bytes(small_model())
    root = merged_import(bpy, path)
    (obj,) = meshes_of(root)
    obj.data.polygons[0].material_index = 2                 # a hull face now in the fin's slot
    for each in bpy.context.view_layer.objects:
        each.select_set(each == root)
    out = tmp_path / "ship.md3"
    assert bpy.ops.export_scene.md3(filepath=str(out)) == {"FINISHED"}
    model = read_md3(out.read_bytes())
    assert out.read_bytes() != path.read_bytes()
    assert sorted(len(s.triangles) for s in model.surfaces) == [1, 2]          # hull's other face; fin + moved
