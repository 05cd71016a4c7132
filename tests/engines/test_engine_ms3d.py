"""Proof in real programs: Maverick Model 3D and Assimp read our MS3D exports as Blender shows the model.

An MS3D file stores its vertices at the skeleton's rest pose, so Blender's side is the exported objects
evaluated with the armature at rest (world space, MilkShape's Y-up axes turned back: ``(x, y, z) ->
(x, -z, y)``). mm3d's OBJ must hold Blender's vertices and triangles (within float32 and its 6 printed
decimals), its .mtl the material names and texture files; ``assimp info`` the triangle count, the
material names and every bone as a joint node; ``assimp export``'s OBJ the same vertices.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.engine_tools import (
    assert_same_surface,
    assimp_info,
    assimp_obj,
    mm3d_obj,
    require,
    select_only,
    world_surface,
)
from support.environment import CORPUS
from support.scenes import skinned_cylinder as _skinned_cylinder


def blender_axes(ms3d_positions: np.ndarray) -> np.ndarray:
    """MilkShape (Y up) -> Blender (Z up), the import's default ``(x, y, z) -> (x, -z, y)``."""
    return np.stack([ms3d_positions[:, 0], -ms3d_positions[:, 2], ms3d_positions[:, 1]], axis=1)


def rest_surface(bpy, meshes, rigs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    for rig in rigs:
        rig.data.pose_position = "REST"
    try:
        return world_surface(bpy, meshes, bpy.context.scene.frame_start)
    finally:
        for rig in rigs:
            rig.data.pose_position = "POSE"


def tolerance_for(positions: np.ndarray) -> float:
    return 2e-5 * float(np.abs(positions).max()) + 2e-6 * 10 + 1e-5


def check_readers(bpy, path: Path, work: Path, meshes, rigs, materials: list[str], textures: dict[str, str]) -> None:
    """mm3d and Assimp read ``path`` as Blender shows ``meshes`` at rest, with ``materials`` (in file order)
    whose images are the files ``textures`` (material -> file name, beside the model)."""
    positions, triangles, polygons = rest_surface(bpy, meshes, rigs)
    tolerance = tolerance_for(positions)
    info = assimp_info(path)
    assert info.faces == len(triangles)
    assert info.materials == materials
    hierarchy = info.log.split("Node hierarchy:", 1)[-1]
    for bone in (b.name for rig in rigs for b in rig.data.bones):
        assert bone in hierarchy, f"assimp shows no joint {bone!r}"
    read = assimp_obj(path, work)
    read.positions = blender_axes(read.positions)
    assert_same_surface(read, positions, triangles, polygons, tolerance, "assimp export")
    made = mm3d_obj(path, work)
    made.positions = blender_axes(made.positions)
    assert_same_surface(made, positions, triangles, polygons, tolerance, "mm3d")
    assert list(made.textures) == materials
    for name, texture in textures.items():
        assert made.textures[name] == texture
        assert (path.parent / texture).is_file(), f"texture {texture} of {name!r} is not beside the model"


def painted(bpy, name: str, colour) -> object:
    image = bpy.data.images.new(name, 8, 8)
    image.pixels.foreach_set(np.tile(np.array(colour, dtype=np.float32), 64))
    material = bpy.data.materials.new(name.title())
    if bpy.app.version < (5, 0, 0):
        material.use_nodes = True
    tree = material.node_tree
    bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
    tex = tree.nodes.new("ShaderNodeTexImage")
    tex.image = image
    tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
    return material


def rigged_model(bpy):
    """The skinned, animated cylinder of ``test_ms3d_round_trip_blender`` (three bones, 75/25 % weights where they
    meet) with two materials whose images are painted in Blender: the lower half one, the upper the other."""
    body, rig = _skinned_cylinder(bpy)
    body.name = "Body"
    body.data.materials.append(painted(bpy, "skin", (0.8, 0.5, 0.3, 1.0)))
    body.data.materials.append(painted(bpy, "metal", (0.3, 0.3, 0.4, 1.0)))
    centres = np.empty(len(body.data.polygons) * 3, dtype=np.float32)
    body.data.polygons.foreach_get("center", centres)
    body.data.polygons.foreach_set("material_index", (centres.reshape(-1, 3)[:, 2] > 1.5).astype(np.int32))
    return body, rig


def test_rigged_model_made_in_blender_reads_in_mm3d_and_assimp(bpy_scene, tmp_path):
    bpy = bpy_scene
    require("mm3d")
    require("assimp")
    body, rig = rigged_model(bpy)
    select_only(bpy, [body, rig])
    path = tmp_path / "rigged.ms3d"
    assert bpy.ops.export_scene.ms3d(filepath=str(path)) == {"FINISHED"}
    check_readers(bpy, path, tmp_path, [body], [rig], ["Skin", "Metal"], {"Skin": "skin.png", "Metal": "metal.png"})


def test_edited_real_ms3d_reads_in_mm3d_and_assimp(bpy_scene, tmp_path):
    bpy = bpy_scene
    require("mm3d")
    require("assimp")
    source = CORPUS / "ms3d/sge/zombie.ms3d"
    if not source.is_file():
        pytest.skip(f"corpus file ms3d/sge/zombie.ms3d not found under {CORPUS}")
    assert bpy.ops.import_scene.ms3d(filepath=str(source)) == {"FINISHED"}
    meshes = [o for o in bpy.context.scene.objects if o.type == "MESH"]
    rigs = [o for o in bpy.context.scene.objects if o.type == "ARMATURE"]
    before = rest_surface(bpy, meshes, rigs)[0]
    meshes[0].data.vertices[0].co.x += 0.5         # the edit: one vertex moved at rest
    after = rest_surface(bpy, meshes, rigs)[0]
    assert abs(np.abs(after - before).max() - 0.5) < 1e-4
    select_only(bpy, meshes + rigs)
    path = tmp_path / "zombie.ms3d"
    assert bpy.ops.export_scene.ms3d(filepath=str(path)) == {"FINISHED"}
    materials = [m.name for m in bpy.data.materials]
    check_readers(bpy, path, tmp_path, meshes, rigs, materials, {materials[0]: "zombie.tga"})


@pytest.mark.parametrize("ci,outcome", [("", "skip"), ("true", "fail")])
def test_a_missing_program_skips_saying_what_to_install_and_fails_under_ci(monkeypatch, ci, outcome):
    from support import engine_tools
    monkeypatch.setitem(engine_tools.PROGRAMS, "mm3d", ("/nonexistent/mm3d", "mm3d"))
    monkeypatch.setattr(engine_tools.shutil, "which", lambda name: None)
    monkeypatch.setenv("CI", ci)
    expected = pytest.skip.Exception if outcome == "skip" else pytest.fail.Exception
    with pytest.raises(expected, match=r"install mm3d \(Debian: apt-get install mm3d\) to run this test"):
        require("mm3d")
