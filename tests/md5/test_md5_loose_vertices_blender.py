"""Vertices no triangle uses (issue 44): an imported MD5 block with such a vertex in the middle of its vertex
list, past the last one used, or with vertices but ``numtris 0`` comes back byte for byte with the default
options (its UV and weights are the file's: Blender holds no UV for a vertex no face uses); edited, a block
otherwise kept keeps them, a rebuilt block keeps those the file had and says how many, and a vertex an edit
left without a face is left out with a warning that counts it.

The small files are built in ``support/md5_loose_cases.py``; each decoded block is compared here with the
file's (``formats/md5/mesh.py`` reads them), vertex by vertex."""
from __future__ import annotations

import numpy as np
import pytest
from support.actions import select_only
from support.blender_helpers import reported
from support.md5_loose_cases import LOOSE_CASES, LOOSE_UV, LOOSE_WEIGHTS


def _import(bpy, tmp_path, text: bytes, name: str = "thing") -> None:
    source = tmp_path / f"{name}.md5mesh"
    source.write_bytes(text)
    assert bpy.ops.import_scene.md5(filepath=str(source)) == {"FINISHED"}


def _blocks(bpy) -> list:
    return sorted((o for o in bpy.context.scene.objects if o.type == "MESH"), key=lambda o: o["md5_mesh_index"])


def _export(bpy, tmp_path, objects) -> bytes:
    select_only(bpy, objects)
    out = tmp_path / "out" / "thing.md5mesh"
    assert bpy.ops.export_scene.md5(filepath=str(out)) == {"FINISHED"}
    return out.read_bytes()


def _vertex(part, v: int) -> tuple:
    """Vertex ``v`` of a decoded block: its UV and its weights (joint, bias) by joint (an export writes a
    rebuilt vertex's largest first)."""
    first, count = int(part.weight_start[v]), int(part.weight_count[v])
    weights = [(int(part.weight_joint[w]), round(float(part.weight_bias[w]), 6)) for w in range(first, first + count)]
    return tuple(np.round(part.uv[v], 6)), sorted(weights)


LOOSE = (LOOSE_UV, sorted((joint, bias) for joint, bias, _ in LOOSE_WEIGHTS))


@pytest.mark.parametrize("case", sorted(LOOSE_CASES))
def test_an_untouched_mesh_with_vertices_no_triangle_uses_comes_back_byte_for_byte(bpy_scene, tmp_path, case):
    _import(bpy_scene, tmp_path, LOOSE_CASES[case])
    assert _export(bpy_scene, tmp_path, _blocks(bpy_scene)) == LOOSE_CASES[case]


def test_an_edited_mesh_keeps_the_loose_vertices_of_blocks_otherwise_kept(bpy_scene, tmp_path):
    """One vertex of the plain block moved: every other block, and the loose vertices, are the file's."""
    from formats.md5.mesh import read_md5mesh
    bpy = bpy_scene
    kept = read_md5mesh(LOOSE_CASES["unused-mixed"])
    _import(bpy, tmp_path, LOOSE_CASES["unused-mixed"])
    blocks = _blocks(bpy)
    blocks[0].data.vertices[0].co.x -= 0.5
    blocks[1].data.vertices[2].co.z += 0.5               # a loose vertex moved: written where it is now
    mesh = read_md5mesh(_export(bpy, tmp_path, blocks))
    assert [p.num_verts for p in mesh.meshes] == [4, 5, 4, 5]
    assert [len(p.triangles) for p in mesh.meshes] == [2, 2, 0, 2]
    assert _vertex(mesh.meshes[1], 2) == LOOSE and _vertex(mesh.meshes[3], 4) == LOOSE
    for m in (2, 3):
        assert [_vertex(mesh.meshes[m], v) for v in range(4)] == [_vertex(kept.meshes[m], v) for v in range(4)]
    from formats.md5.skinning import bind_joints, skin_vertices
    moved = skin_vertices(mesh.meshes[1], *bind_joints(mesh))[2]
    np.testing.assert_allclose(moved, skin_vertices(kept.meshes[1], *bind_joints(kept))[2] + (0.0, 0.0, 0.5),
                               atol=1e-5)


def test_a_rebuilt_block_keeps_the_files_loose_vertices_and_counts_those_an_edit_left_without_a_face(
        bpy_scene, tmp_path, capfd):
    """A face deleted from the block whose vertex 4 no triangle uses: the block is rebuilt; vertex 4 (the
    file's own) stays with its UV and weights, said as a note; vertex 1, which only the deleted face used, is
    left out, said in a warning with its count."""
    import bmesh

    from formats.md5.mesh import read_md5mesh
    bpy = bpy_scene
    _import(bpy, tmp_path, LOOSE_CASES["unused-last"])
    (obj,) = _blocks(bpy)
    edit = bmesh.new()
    edit.from_mesh(obj.data)
    edit.faces.ensure_lookup_table()
    bmesh.ops.delete(edit, geom=[edit.faces[0]], context="FACES_ONLY")
    edit.to_mesh(obj.data)
    edit.free()
    assert len(obj.data.vertices) == 5
    capfd.readouterr()
    mesh = read_md5mesh(_export(bpy, tmp_path, [obj]))
    printed = capfd.readouterr().out
    warnings, _ = reported(printed)
    (part,) = mesh.meshes
    assert part.num_verts == 4 and len(part.triangles) == 1
    assert _vertex(part, 3) == LOOSE
    left_out = [w for w in warnings if "no face uses" in w]
    assert len(left_out) == 1 and left_out[0].startswith("1 vertex no face uses left out")
    notes = [line for line in printed.splitlines() if line.startswith("Info: ") and "no face uses kept" in line]
    assert len(notes) == 1 and notes[0].startswith("Info: 1 vertex no face uses kept in rebuilt mesh blocks")


def test_loose_vertices_of_a_mesh_made_in_blender_are_left_out_with_a_count(bpy_scene, tmp_path, capfd):
    """A Blender-made mesh has no file to give a loose vertex its UV: the two are left out, said once."""
    from formats.md5.mesh import read_md5mesh
    bpy = bpy_scene
    _import(bpy, tmp_path, LOOSE_CASES["unused-middle"])
    (obj,) = _blocks(bpy)
    del obj.parent["md5_mesh_source"]                   # no file kept: as a mesh made in Blender
    capfd.readouterr()
    mesh = read_md5mesh(_export(bpy, tmp_path, [obj]))
    warnings, _ = reported(capfd.readouterr().out)
    assert mesh.meshes[0].num_verts == 4
    left_out = [w for w in warnings if "no face uses" in w]
    assert len(left_out) == 1 and left_out[0].startswith("1 vertex no face uses left out")


def test_an_edited_block_keeps_its_triangles_that_use_a_vertex_twice(bpy_scene, tmp_path):
    """A vertex moved in the block whose triangles 1 (4 4 1) and 3 (0 0 2) use a vertex twice: Blender has no
    face for those two, and they are written back at their index with vertex 4, which only one of them uses."""
    from formats.md5.mesh import read_md5mesh
    bpy = bpy_scene
    kept = read_md5mesh(LOOSE_CASES["degenerate"])
    _import(bpy, tmp_path, LOOSE_CASES["degenerate"])
    (obj,) = _blocks(bpy)
    obj.data.vertices[0].co.x -= 0.5
    (part,) = read_md5mesh(_export(bpy, tmp_path, [obj])).meshes
    assert part.triangles.tolist() == kept.meshes[0].triangles.tolist()
    assert part.num_verts == 5 and _vertex(part, 4) == LOOSE
    assert not np.allclose(part.weight_pos, kept.meshes[0].weight_pos)       # the moved vertex is written
