"""A mesh with no faces beside meshes with faces (an MS3D group with no triangles, as the corpus
``glscene/Box.ms3d`` has) is left out of an MD2/MDL export with a note; alone it is still refused."""
from __future__ import annotations

import numpy as np
import pytest
from support.md2_reference import decode as decode_md2
from support.mdl_reference import decode as decode_mdl


def cube_and_empty_mesh(bpy):
    scene = bpy.context.scene
    scene.frame_start = scene.frame_end = 1
    bpy.ops.mesh.primitive_cube_add()
    cube = bpy.context.object
    empty = bpy.data.objects.new("Group02", bpy.data.meshes.new("Group02"))
    scene.collection.objects.link(empty)
    empty.select_set(True)
    cube.select_set(True)
    return cube


@pytest.mark.parametrize("kind", ["md2", "mdl"])
def test_a_faceless_mesh_is_left_out_with_a_note(bpy_scene, tmp_path, kind, capsys):
    bpy = bpy_scene
    cube = cube_and_empty_mesh(bpy)
    path = tmp_path / f"m.{kind}"
    capsys.readouterr()
    assert getattr(bpy.ops.export_scene, kind)(filepath=str(path)) == {"FINISHED"}
    assert "object 'Group02' has no faces: left out" in capsys.readouterr().out
    data = path.read_bytes()
    if kind == "md2":
        ref = decode_md2(data)
        positions, triangles = np.array(ref.positions[0]), len(ref.tris)
    else:
        ref = decode_mdl(data)
        verts = np.array([v[:3] for v in ref.frames[0].poses[0].verts], np.float64)
        positions, triangles = verts * np.array(ref.scale) + np.array(ref.translate), ref.num_tris
    mesh = cube.evaluated_get(bpy.context.evaluated_depsgraph_get()).to_mesh()
    assert triangles == sum(len(p.vertices) - 2 for p in mesh.polygons)
    corners = np.array([cube.matrix_world @ v.co for v in mesh.vertices])
    nearest = np.abs(positions[:, None, :] - corners[None, :, :]).max(axis=2).min(axis=1)
    assert nearest.max() < 2.0 / 255       # every written vertex is a cube corner, within a step


def test_a_faceless_mesh_alone_is_still_refused(bpy_scene, tmp_path):
    bpy = bpy_scene
    bpy.context.scene.frame_start = bpy.context.scene.frame_end = 1
    empty = bpy.data.objects.new("Group02", bpy.data.meshes.new("Group02"))
    bpy.context.scene.collection.objects.link(empty)
    empty.select_set(True)
    with pytest.raises(RuntimeError, match="'Group02' has no faces"):
        bpy.ops.export_scene.md2(filepath=str(tmp_path / "m.md2"))
    assert not (tmp_path / "m.md2").exists()
