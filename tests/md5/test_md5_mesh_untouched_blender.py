"""An untouched imported ``.md5mesh`` is written from its kept text without reading or printing it (issue 44,
the MD5 export's speed): the import stores a digest of the file and of the mesh objects and bones it made
(``common/md5/keys.py`` MD5_MESH_KEYS) and the export writes the kept text while they hold
(``exporters/md5/untouched.py`` ``mesh_held``). Every corpus mesh comes back byte for byte with the
``.md5mesh`` printer made to raise (a mesh of vertices no face uses may still read its text for their UVs);
a vertex moved, or a weight changed, sends the mesh the old way: read, merged, printed, and the file
changes where the edit is. Fails on the old code, which read and printed every mesh to compare it."""
from __future__ import annotations

from importlib import import_module

import numpy as np
import pytest
from support.environment import CORPUS, corpus_files
from support.md5_drone import DRONE
from support.md5_loose_cases import LOOSE_CASES

from formats.md5.mesh import read_md5mesh
from formats.md5.skinning import bind_joints, skin_vertices

MESHES = [pytest.param(p, id=str(p.relative_to(CORPUS / "md5"))) for p in corpus_files("md5/**/*.md5mesh")] or \
    [pytest.param(None, marks=pytest.mark.skip(reason=f"no .md5mesh in the corpus at {CORPUS}"))]


def _printing(monkeypatch, extension, fail: bool) -> dict[str, int]:
    """Counts the ``.md5mesh`` texts printed and read by the export (raising on a print with ``fail``)."""
    calls = {"printed": 0, "read": 0}
    for name in ("write_back", "export"):
        module = import_module(f"{extension}.exporters.md5.{name}")

        def printed(mesh, original=module.write_md5mesh):
            if fail:
                raise AssertionError("an untouched mesh was printed")
            calls["printed"] += 1
            return original(mesh)
        monkeypatch.setattr(module, "write_md5mesh", printed)
    write_back = import_module(f"{extension}.exporters.md5.write_back")

    def read(text, original=write_back.read_md5mesh):
        calls["read"] += 1
        return original(text)
    monkeypatch.setattr(write_back, "read_md5mesh", read)
    return calls


@pytest.mark.parametrize("path", MESHES)
def test_an_untouched_mesh_is_written_without_printing(bpy_scene, extension, tmp_path, monkeypatch, path):
    bpy = bpy_scene
    assert bpy.ops.import_scene.md5(filepath=str(path), find_anims="NONE") == {"FINISHED"}
    calls = _printing(monkeypatch, extension, fail=True)
    assert bpy.ops.export_scene.md5(filepath=str(tmp_path / path.name), use_selection=False) == {"FINISHED"}
    assert (tmp_path / path.name).read_bytes() == path.read_bytes()
    part_loose = []
    for part in read_md5mesh(path.read_bytes()).meshes:
        triangles = np.asarray(part.triangles).reshape(-1, 3)
        faced = triangles[(triangles[:, 0] != triangles[:, 1]) & (triangles[:, 1] != triangles[:, 2])
                          & (triangles[:, 0] != triangles[:, 2])]
        part_loose.append(len(np.setdiff1d(np.arange(part.num_verts), faced)))
    assert calls["read"] == (1 if any(part_loose) else 0)       # read only for the UVs of vertices no face uses


def _drone(bpy):
    if not DRONE.is_file():
        pytest.skip(f"corpus file not found: {DRONE}")
    assert bpy.ops.import_scene.md5(filepath=str(DRONE), find_anims="FOLDER") == {"FINISHED"}
    return sorted((o for o in bpy.context.scene.objects if o.type == "MESH"), key=lambda o: o["md5_mesh_index"])


def _export(bpy, folder):
    assert bpy.ops.export_scene.md5(filepath=str(folder / DRONE.name), use_selection=False) == {"FINISHED"}
    return read_md5mesh((folder / DRONE.name).read_bytes())


def test_the_drone_with_its_anims_is_written_without_printing(bpy_scene, extension, tmp_path, monkeypatch):
    bpy = bpy_scene
    _drone(bpy)
    calls = _printing(monkeypatch, extension, fail=True)
    _export(bpy, tmp_path)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == {
        p.name: p.read_bytes() for p in DRONE.parent.iterdir() if p.suffix in (".md5mesh", ".md5anim")}
    assert calls == {"printed": 0, "read": 0}


@pytest.mark.parametrize("edit", ["vertex moved", "weight changed"])
def test_an_edited_mesh_goes_the_old_way(bpy_scene, extension, tmp_path, monkeypatch, edit):
    """A vertex of block 1 (the first of two weights or more) moved 0.5 along x, or its first weight halved:
    the mesh is read and printed, block 0 and the other vertices stay the file's, the edited vertex is where
    Blender now has it."""
    bpy = bpy_scene
    block = _drone(bpy)[1]
    before = read_md5mesh(DRONE.read_bytes())
    index = next(v.index for v in block.data.vertices if len(v.groups) >= 2)
    vertex = block.data.vertices[index]
    if edit == "vertex moved":
        vertex.co.x += 0.5
    else:
        group = block.vertex_groups[vertex.groups[0].group]
        group.add([index], vertex.groups[0].weight * 0.5, "REPLACE")
    calls = _printing(monkeypatch, extension, fail=False)
    after = _export(bpy, tmp_path)
    assert calls["printed"] >= 1 and calls["read"] >= 1
    assert (tmp_path / DRONE.name).read_bytes() != DRONE.read_bytes()
    old_joints, new_joints = bind_joints(before), bind_joints(after)
    old0, new0 = skin_vertices(before.meshes[0], *old_joints), skin_vertices(after.meshes[0], *new_joints)
    assert np.array_equal(old0, new0)
    old1, new1 = skin_vertices(before.meshes[1], *old_joints), skin_vertices(after.meshes[1], *new_joints)
    moved = np.flatnonzero(np.abs(new1 - old1).max(axis=1) > 1e-4)
    if edit == "vertex moved":
        assert moved.tolist() == [index]
        assert new1[index] - old1[index] == pytest.approx([0.5, 0.0, 0.0], abs=1e-4)
    else:
        assert set(moved.tolist()) <= {index}
        counts = np.asarray(after.meshes[1].weight_count)
        assert np.array_equal(np.delete(counts, index), np.delete(np.asarray(before.meshes[1].weight_count), index))
        start = int(after.meshes[1].weight_start[index])
        biases = np.asarray(after.meshes[1].weight_bias)[start:start + counts[index]]
        old_start = int(before.meshes[1].weight_start[index])
        old_biases = np.asarray(before.meshes[1].weight_bias)[old_start:old_start + counts[index]]
        assert not np.allclose(np.sort(biases), np.sort(old_biases), atol=1e-4)


@pytest.mark.parametrize("case", sorted(LOOSE_CASES))
def test_an_untouched_mesh_with_vertices_no_face_uses_reads_its_text_but_does_not_print_it(
        bpy_scene, extension, tmp_path, monkeypatch, case):
    """No corpus mesh has a vertex no face uses; these small files do (in the middle, past the last one used,
    a block of no triangle, triangles that use a vertex twice): the kept text is read once for those
    vertices' UVs and written back as it is."""
    bpy = bpy_scene
    source = tmp_path / "thing.md5mesh"
    source.write_bytes(LOOSE_CASES[case])
    assert bpy.ops.import_scene.md5(filepath=str(source)) == {"FINISHED"}
    calls = _printing(monkeypatch, extension, fail=True)
    assert bpy.ops.export_scene.md5(filepath=str(tmp_path / "out" / source.name), use_selection=False) == {"FINISHED"}
    assert (tmp_path / "out" / source.name).read_bytes() == LOOSE_CASES[case]
    assert calls == {"printed": 0, "read": 1}
