"""An imported MD5 mesh exported with the default options, through the operators: untouched, it is its
file byte for byte (weights past four on a vertex, of zero bias, two on one joint; an editor's absolute
path as the shader; the file's own ``commandline``; blocks of no vertex); edited, every weight Blender
holds is written (none cut at four, the report counting the vertices past ironwail's four) and the
file's shaders, ``commandline`` and empty blocks stay.

The small files are built in ``support/md5_weight_cases.py`` (the corpus's meshes, which hold none of these
cases, come back byte for byte in ``test_md5_exact_bind_blender.py`` and, with every default,
``test_md5_default_export_blender.py``). Weights are compared with Blender's vertex groups read here, the file's
reduced independently (a joint given twice summed, zero biases left out, shares of the vertex's sum)."""
from __future__ import annotations

import numpy as np
import pytest
from support.actions import select_only
from support.blender_helpers import reported
from support.md5_weight_cases import CASES, COMMANDLINE, SHADER

SHARE = 1e-5             # float32 vertex-group weights against the file's six decimals


def _round_trip(bpy, source, out):
    assert bpy.ops.import_scene.md5(filepath=str(source)) == {"FINISHED"}
    select_only(bpy, _blocks(bpy))
    assert bpy.ops.export_scene.md5(filepath=str(out)) == {"FINISHED"}
    return out.read_bytes()


def _imported(bpy, tmp_path, text: bytes) -> None:
    """``text`` written as ``thing.md5mesh`` and imported with the default options."""
    source = tmp_path / "thing.md5mesh"
    source.write_bytes(text)
    assert bpy.ops.import_scene.md5(filepath=str(source)) == {"FINISHED"}


def _blocks(bpy) -> list:
    return sorted((o for o in bpy.context.scene.objects if o.type == "MESH"), key=lambda o: o["md5_mesh_index"])


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_untouched_mesh_comes_back_byte_for_byte(bpy_scene, tmp_path, case):
    source = tmp_path / "thing.md5mesh"
    source.write_bytes(CASES[case])
    assert _round_trip(bpy_scene, source, tmp_path / "out" / "thing.md5mesh") == CASES[case]


def test_an_untouched_mesh_past_four_weights_says_so_as_a_note(bpy_scene, tmp_path, capfd):
    """Written back as its file, the vertices past ironwail's four are the file's own: the count is an info
    line, not a warning (the export did not put them there)."""
    source = tmp_path / "thing.md5mesh"
    source.write_bytes(CASES["more-than-four"])
    capfd.readouterr()
    assert _round_trip(bpy_scene, source, tmp_path / "out" / "thing.md5mesh") == CASES["more-than-four"]
    printed = capfd.readouterr().out
    warnings, _ = reported(printed)
    assert not [w for w in warnings if "more than 4 bone weights" in w]
    assert [line for line in printed.splitlines() if line.startswith("Info: ") and "more than 4 bone weights" in line]


def _file_weights(part) -> list[dict[int, float]]:
    """Per vertex of a decoded block, joint -> share of the vertex's biases (a joint given twice summed,
    zero left out): what a vertex group can hold of the file's weights."""
    out = []
    for v in range(part.num_verts):
        shares: dict[int, float] = {}
        for w in range(part.weight_start[v], part.weight_start[v] + part.weight_count[v]):
            shares[int(part.weight_joint[w])] = shares.get(int(part.weight_joint[w]), 0.0) + float(part.weight_bias[w])
        total = sum(shares.values())
        out.append({j: s / total for j, s in shares.items() if s > 0})
    return out


def _group_weights(obj, joint_of: dict[str, int]) -> list[dict[int, float]]:
    """Per vertex of ``obj``, joint -> share of every vertex-group weight above 0 Blender holds."""
    names = {g.index: g.name for g in obj.vertex_groups}
    out = []
    for vertex in obj.data.vertices:
        held = {joint_of[names[e.group]]: e.weight for e in vertex.groups if e.weight > 0}
        total = sum(held.values())
        out.append({j: w / total for j, w in held.items()})
    return out


def _same_part(a, b) -> bool:
    names = ("shader", "uv", "weight_start", "weight_count", "triangles", "weight_joint", "weight_bias", "weight_pos")
    return all(np.array_equal(getattr(a, n), getattr(b, n)) for n in names)


def _same_weights(a: dict[int, float], b: dict[int, float]) -> bool:
    return a.keys() == b.keys() and all(abs(a[j] - b[j]) <= SHARE for j in a)


def test_an_edited_mesh_keeps_every_weight_blender_holds_and_counts_those_past_four(bpy_scene, tmp_path, capfd):
    from formats.md5.mesh import read_md5mesh
    from formats.md5.skinning import bind_joints, skin_vertices
    bpy = bpy_scene
    kept = read_md5mesh(CASES["all"])
    _imported(bpy, tmp_path, CASES["all"])
    blocks = _blocks(bpy)
    first = blocks[0]
    first.data.vertices[2].co.z += 0.25              # the vertex of two weights on joint c: now one, moved
    for name, weight in (("a", 0.1), ("c", 0.3)):    # the last vertex: from 3 weights to 5
        first.vertex_groups[name].add([3], weight, "REPLACE")
    capfd.readouterr()
    select_only(bpy, blocks)
    out = tmp_path / "out" / "thing.md5mesh"
    assert bpy.ops.export_scene.md5(filepath=str(out)) == {"FINISHED"}
    warnings, _ = reported(capfd.readouterr().out)
    mesh = read_md5mesh(out.read_bytes())

    assert mesh.header.commandline == COMMANDLINE
    assert [p.shader for p in mesh.meshes] == [p.shader for p in kept.meshes]
    assert mesh.meshes[0].shader == SHADER and mesh.meshes[1].num_verts == 0
    joint_of = {name: j for j, name in enumerate(mesh.joint_names)}
    joints = bind_joints(mesh)
    for obj, part in zip(blocks, mesh.meshes):
        written, held = _file_weights(part), _group_weights(obj, joint_of)
        assert len(written) == len(held) == len(obj.data.vertices)
        assert [v for v in range(len(held)) if not _same_weights(written[v], held[v])] == []
        rest = np.array([v.co for v in obj.data.vertices], np.float64).reshape(-1, 3)
        np.testing.assert_allclose(skin_vertices(part, *joints), rest, atol=1e-5)
    counts = mesh.meshes[0].weight_count.tolist()
    assert counts == [5, 2, 1, 5]                    # vertex 1 keeps the file's zero bias; 2 has joint c once
    assert _same_part(mesh.meshes[2], kept.meshes[2])     # the block left alone: every value as read
    past_four = [line for line in warnings if "more than 4 bone weights" in line]
    assert len(past_four) == 1 and past_four[0].startswith("3 vertices have more than 4 bone weights (up to 5)")


def test_an_edited_mesh_keeps_its_empty_blocks(bpy_scene, tmp_path):
    from formats.md5.mesh import read_md5mesh
    bpy = bpy_scene
    kept = read_md5mesh(CASES["empty-blocks"])
    _imported(bpy, tmp_path, CASES["empty-blocks"])
    blocks = _blocks(bpy)
    blocks[0].data.vertices[0].co.x -= 0.5
    select_only(bpy, blocks)
    out = tmp_path / "out" / "thing.md5mesh"
    assert bpy.ops.export_scene.md5(filepath=str(out)) == {"FINISHED"}
    mesh = read_md5mesh(out.read_bytes())
    assert [p.num_verts for p in mesh.meshes] == [4, 0, 4, 0]
    assert [p.shader for p in mesh.meshes] == [p.shader for p in kept.meshes]
    assert not _same_part(mesh.meshes[0], kept.meshes[0]) and _same_part(mesh.meshes[2], kept.meshes[2])
    assert out.read_bytes() != CASES["empty-blocks"]


def test_a_block_whose_faces_changed_is_rebuilt_under_its_shader_and_the_others_are_kept(bpy_scene, tmp_path):
    import bmesh

    from formats.md5.mesh import read_md5mesh
    bpy = bpy_scene
    kept = read_md5mesh(CASES["all"])
    _imported(bpy, tmp_path, CASES["all"])
    blocks = _blocks(bpy)
    edit = bmesh.new()
    edit.from_mesh(blocks[0].data)
    edit.faces.ensure_lookup_table()
    bmesh.ops.delete(edit, geom=[edit.faces[0]], context="FACES")
    edit.to_mesh(blocks[0].data)
    edit.free()
    select_only(bpy, blocks)
    out = tmp_path / "out" / "thing.md5mesh"
    assert bpy.ops.export_scene.md5(filepath=str(out)) == {"FINISHED"}
    mesh = read_md5mesh(out.read_bytes())
    assert mesh.header.commandline == COMMANDLINE
    assert [p.shader for p in mesh.meshes] == [p.shader for p in kept.meshes]
    assert [len(p.triangles) for p in mesh.meshes] == [1, 0, 2] and mesh.meshes[0].num_verts == 3
    assert _same_part(mesh.meshes[2], kept.meshes[2])
    np.testing.assert_array_equal(mesh.joint_pos, kept.joint_pos)


def test_a_moved_vertex_of_five_weights_keeps_them_all_in_the_files_own_lines(bpy_scene, tmp_path):
    from formats.md5.mesh import read_md5mesh
    bpy = bpy_scene
    _imported(bpy, tmp_path, CASES["more-than-four"])
    block = _blocks(bpy)[0]
    block.data.vertices[0].co.y += 0.5
    select_only(bpy, [block])
    out = tmp_path / "out" / "thing.md5mesh"
    assert bpy.ops.export_scene.md5(filepath=str(out)) == {"FINISHED"}
    mesh = read_md5mesh(out.read_bytes())
    assert mesh.meshes[0].weight_count.tolist() == [5, 1, 1, 1]
    joint_of = {name: j for j, name in enumerate(mesh.joint_names)}
    held = _group_weights(block, joint_of)
    assert all(_same_weights(w, h) for w, h in zip(_file_weights(mesh.meshes[0]), held))
    old_lines, new_lines = CASES["more-than-four"].decode().splitlines(), out.read_text().splitlines()
    changed = [old for old, new in zip(old_lines, new_lines) if old != new]
    assert len(old_lines) == len(new_lines) and changed                 # the file's layout, line for line
    assert all(line.startswith("\tweight ") and int(line.split()[1]) < 5 for line in changed)


def test_a_renamed_bone_keeps_every_blocks_shader_and_the_files_commandline(bpy_scene, tmp_path):
    from formats.md5.mesh import read_md5mesh
    bpy = bpy_scene
    kept = read_md5mesh(CASES["all"])
    _imported(bpy, tmp_path, CASES["all"])
    rig = next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")
    rig.data.bones["d"].name = "d2"
    select_only(bpy, _blocks(bpy))
    out = tmp_path / "out" / "thing.md5mesh"
    assert bpy.ops.export_scene.md5(filepath=str(out)) == {"FINISHED"}
    mesh = read_md5mesh(out.read_bytes())
    assert "d2" in mesh.joint_names
    assert mesh.header.commandline == COMMANDLINE
    assert [p.shader for p in mesh.meshes] == [p.shader for p in kept.meshes]


def test_a_small_weight_edit_on_a_large_model_is_written(bpy_scene, tmp_path):
    """A model 1000 units across: a vertex's weight on joint 4 raised from 0.1 to 0.1005 (its share by about
    4.5e-4, less than the model-size tolerance of positions, 9.5e-4) is an edit: the vertex's biases are
    written as Blender holds them, not the file's (the weights' positions are the vertex's own for every
    joint, so the skinned vertex does not move: only the shares tell)."""
    from support.md5_weight_cases import MANY, QUAD, block, md5mesh

    from formats.md5.mesh import read_md5mesh
    bpy = bpy_scene
    text = md5mesh([block(MANY, points=QUAD * 1000.0)])
    source = tmp_path / "big.md5mesh"
    source.write_bytes(text)
    assert bpy.ops.import_scene.md5(filepath=str(source)) == {"FINISHED"}
    (obj,) = _blocks(bpy)
    obj.vertex_groups["d"].add([0], 0.1005, "REPLACE")
    select_only(bpy, [obj])
    out = tmp_path / "out" / "big.md5mesh"
    assert bpy.ops.export_scene.md5(filepath=str(out)) == {"FINISHED"}
    written, kept = read_md5mesh(out.read_bytes()).meshes[0], read_md5mesh(text).meshes[0]
    joint_of = {name: j for j, name in enumerate(read_md5mesh(text).joint_names)}
    assert _same_weights(_file_weights(written)[0], _group_weights(obj, joint_of)[0])
    assert not _same_weights(_file_weights(written)[0], _file_weights(kept)[0])
