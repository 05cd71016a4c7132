"""IQM through File > Import (``bpy.ops.import_scene.iqm``): the armature, the meshes with weights, UVs,
normals and colours, one action per anim, the scene's timing, the ``.iqm.framegroups`` beside the model,
a refused file. Expected values come from the struct reading of support/iqm_files.py and skinning written
here (T·R·S joint matrices down the parents, vertices moved by ``F_j · W_j⁻¹`` weighted, as DarkPlaces
skins), never from the extension's own decoding."""
from __future__ import annotations

import struct
import sys

import numpy as np
import pytest
from support.blender_helpers import corner_uvs, datablock_counts, evaluated_positions, polygon_vertices
from support.environment import corpus_params
from support.iqm_files import build, cstr, header_at, reference_read

IQM_FILES = corpus_params("iqm/**/*.iqm")


def _quat_matrix(q) -> np.ndarray:
    x, y, z, w = np.asarray(q, np.float64) / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def _trs(t, r, s) -> np.ndarray:
    out = np.eye(4)
    out[:3, :3] = _quat_matrix(r) @ np.diag(s)
    out[:3, 3] = t
    return out


def _worlds(locals_: list[np.ndarray], parents: list[int]) -> list[np.ndarray]:
    out: list[np.ndarray] = []
    for j, matrix in enumerate(locals_):
        out.append(out[parents[j]] @ matrix if parents[j] >= 0 else matrix)
    return out


def _frame_locals(ref: dict, frame: int) -> list[np.ndarray]:
    """Each pose's local matrix at ``frame``: channel c = offset + value * scale where the mask sets it."""
    values = iter(ref["frames"][frame])
    out = []
    for parent, mask, *floats in ref["poses"]:
        channels = [floats[c] + (next(values) * floats[10 + c] if mask >> c & 1 else 0.0) for c in range(10)]
        out.append(_trs(channels[0:3], channels[3:7], channels[7:10]))
    return out


def _skinned(ref: dict, frame: int) -> np.ndarray:
    joints = ref["joints"]
    parents = [j[1] for j in joints]
    bind = _worlds([_trs(j[2:5], j[5:9], j[9:12]) for j in joints], parents)
    posed = _worlds(_frame_locals(ref, frame), parents)
    arrays = {a["type"]: np.array(a["rows"], np.float64) for a in ref["arrays"]}
    positions, indexes, weights = arrays[0], arrays[4].astype(int), arrays[5] / 255.0
    out = np.zeros_like(positions)
    for v, point in enumerate(positions):
        for k in range(4):
            if weights[v, k]:
                skin = posed[indexes[v, k]] @ np.linalg.inv(bind[indexes[v, k]])
                out[v] += weights[v, k] * (skin[:3, :3] @ point + skin[:3, 3])
    return out


def _import(bpy, path, **options):
    result = bpy.ops.import_scene.iqm(filepath=str(path), **options)
    assert result == {"FINISHED"}
    root = next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")
    meshes = sorted((o for o in root.children if o.type == "MESH"), key=lambda o: o["iqm_mesh_index"])
    return root, meshes


@pytest.mark.parametrize("block", [None, 2])
def test_built_model_pose_by_pose_as_the_engines_skin_it(bpy_scene, tmp_path, extension, monkeypatch, block):
    """``block`` 2: the frames worked out two at a time (``iqm_import.BLOCK``), the walk's 3 frames split."""
    if block is not None:
        monkeypatch.setattr(sys.modules[f"{extension}.importers.iqm.iqm_import"], "BLOCK", block)
    bpy = bpy_scene
    data, facts = build()
    path = tmp_path / "model.iqm"
    path.write_bytes(data)
    ref = reference_read(data)
    root, meshes = _import(bpy, path)
    text = ref["text"]
    assert [b.name for b in root.data.bones] == [cstr(text, j[0]) for j in ref["joints"]]
    assert [b["iqm_joint_index"] for b in root.data.bones] == [0, 1, 2]
    assert [b.parent.name if b.parent else None for b in root.data.bones] == [None, "root", "spine"]
    assert [o.name for o in meshes] == ["body", "head"]
    actions = {a.name: a for a in bpy.data.actions}
    assert set(actions) == {cstr(text, a[0]) for a in ref["anims"]}
    for name, first, count, rate, flags in ref["anims"]:
        action = actions[cstr(text, name)]
        assert (action["iqm_anim_frames"][0], action["iqm_anim_frames"][1]) == (first, count)
        assert action["anim_frame_rate"] == pytest.approx(rate) and action["iqm_loop"] == flags & 1
        assert action["anim_frame_count"] == count and "iqm_framerate" not in action    # the shared names only
    scene = bpy.context.scene
    first = ref["anims"][0]
    assert scene.render.fps / scene.render.fps_base == pytest.approx(first[3])
    assert (scene.frame_start, scene.frame_end) == (1, first[2])
    names = [item.name for item in root.classic_model.animations]
    assert names == [cstr(text, a[0]) for a in ref["anims"]]
    for anim_index, (name, first_frame, count, _, _) in enumerate(ref["anims"]):
        root.classic_model.active_animation = anim_index
        for k in range(count):
            scene.frame_set(1 + k)
            got = np.concatenate([evaluated_positions(bpy, o) for o in meshes])
            np.testing.assert_allclose(got, _skinned(ref, first_frame + k), atol=2e-4,
                                       err_msg=f"anim {cstr(text, name)} frame {k}")


@pytest.mark.parametrize("path", [p for p in IQM_FILES if p.values[0] is None or p.values[0].parts[-2:] == ("target", "move.iqm")])
def test_a_corpus_anim_pose_by_pose_as_the_engines_skin_it(bpy_scene, path):
    """Red Eclipse's john/target/move.iqm: 201 frames of its joint's rotation, every tenth frame compared."""
    bpy = bpy_scene
    ref = reference_read(path.read_bytes())
    _, meshes = _import(bpy, path)
    for frame in range(0, len(ref["frames"]), 10):
        bpy.context.scene.frame_set(1 + frame)
        got = np.concatenate([evaluated_positions(bpy, o) for o in meshes])
        np.testing.assert_allclose(got, _skinned(ref, frame), atol=2e-4, err_msg=f"frame {frame}")


def test_built_model_uvs_normals_colours_weights_and_faces(bpy_scene, tmp_path):
    bpy = bpy_scene
    data, facts = build()
    path = tmp_path / "model.iqm"
    path.write_bytes(data)
    ref = reference_read(data)
    _, meshes = _import(bpy, path)
    arrays = {a["type"]: np.array(a["rows"], np.float64) for a in ref["arrays"]}
    for obj, (_, _, first, count, first_tri, tris) in zip(meshes, ref["meshes"]):
        triangles = np.array(ref["triangles"][first_tri:first_tri + tris]) - first
        faced = triangles[[len(set(t)) == 3 for t in triangles]]
        np.testing.assert_array_equal(polygon_vertices(obj.data), faced[:, ::-1])     # clockwise in the file
        expected_uv = np.column_stack([arrays[1][:, 0], 1 - arrays[1][:, 1]])[first:first + count]
        np.testing.assert_allclose(corner_uvs(obj.data), expected_uv[faced[:, ::-1]], atol=1e-6)
        colours = np.empty(count * 4, np.float32)
        obj.data.color_attributes["Color"].data.foreach_get("color_srgb", colours)   # the bytes as shown
        np.testing.assert_allclose(colours.reshape(-1, 4), arrays[6][first:first + count] / 255.0,
                                   atol=2e-5)                # Blender's sRGB <-> linear: a byte within 1/200
        for v in range(count):
            got = {obj.vertex_groups[e.group].name: e.weight for e in obj.data.vertices[v].groups}
            expected: dict[str, float] = {}
            for joint, weight in zip(arrays[4][first + v], arrays[5][first + v]):
                if weight:
                    name = cstr(ref["text"], ref["joints"][int(joint)][0])
                    expected[name] = expected.get(name, 0.0) + weight / 255.0
            assert got == pytest.approx(expected), v


@pytest.mark.parametrize("path", [p for p in IQM_FILES if p.values[0] is None or "claw" in p.values[0].name])
def test_file_normals_are_the_custom_normals(bpy_scene, path):
    """The normal array as each corner's normal (the built file's faces have no area: a corpus file)."""
    bpy = bpy_scene
    ref = reference_read(path.read_bytes())
    _, meshes = _import(bpy, path)
    normals = {a["type"]: np.array(a["rows"], np.float64) for a in ref["arrays"]}[2]
    for obj, (_, _, first, count, _, _) in zip(meshes, ref["meshes"]):
        got = np.empty(len(obj.data.loops) * 3, np.float32)
        obj.data.corner_normals.foreach_get("vector", got)
        expected = normals[first:first + count][polygon_vertices(obj.data).ravel()]
        expected /= np.linalg.norm(expected, axis=1, keepdims=True)
        np.testing.assert_allclose(got.reshape(-1, 3), expected, atol=2e-3)


def test_framegroups_beside_the_model_become_the_actions(bpy_scene, tmp_path):
    bpy = bpy_scene
    data, _ = build()
    (tmp_path / "model.iqm").write_bytes(data)
    (tmp_path / "model.iqm.framegroups").write_text("1 3 5 0 stride\n0 1\n")
    root, _ = _import(bpy, tmp_path / "model.iqm")
    actions = sorted(bpy.data.actions, key=lambda a: tuple(a["iqm_anim_frames"]))
    assert [(a.name, tuple(a["iqm_anim_frames"]), a["anim_frame_rate"], a["anim_frame_count"], a["iqm_loop"],
             a["iqm_anim_index"]) for a in actions] == [("groupified_1_anim", (0, 1), 20.0, 1, 1, -1),
                                                        ("stride", (1, 3), 5.0, 3, 0, -1)]
    assert root["iqm_framegroups"] == b"1 3 5 0 stride\n0 1\n"
    assert bpy.context.scene.render.fps / bpy.context.scene.render.fps_base == pytest.approx(5.0)
    bpy.ops.wm.read_homefile(use_empty=True)
    _import(bpy, tmp_path / "model.iqm", iqm_framegroups=False)
    assert sorted(a.name for a in bpy.data.actions) == ["idle", "walk"]


def test_a_broken_file_is_refused_naming_it_and_leaves_nothing(bpy_scene, tmp_path):
    bpy = bpy_scene
    data, _ = build()
    broken = bytearray(data)
    struct.pack_into("<I", broken, header_at("num_joints"), 1 << 30)
    path = tmp_path / "broken.iqm"
    path.write_bytes(bytes(broken))
    before = datablock_counts(bpy)
    with pytest.raises(RuntimeError, match=r"broken\.iqm.*num_joints"):
        bpy.ops.import_scene.iqm(filepath=str(path))
    assert datablock_counts(bpy) == before and len(bpy.data.armatures) == 0


@pytest.mark.parametrize("path", IQM_FILES)
def test_every_corpus_file_imports_with_its_counts(bpy_scene, path):
    bpy = bpy_scene
    ref = reference_read(path.read_bytes())
    root, meshes = _import(bpy, path)
    bones = len(ref["joints"]) or len(ref["poses"])
    assert len(root.data.bones) == bones
    assert [len(o.data.vertices) for o in meshes] == [m[3] for m in ref["meshes"]]
    assert sum(len(o.data.polygons) for o in meshes) == sum(
        len(set(t)) == 3 for t in ref["triangles"])
    text = ref["text"]
    expected = sorted(cstr(text, a[0]) or f"anim{i}" for i, a in enumerate(ref["anims"]) if a[2])
    assert sorted(a.name for a in bpy.data.actions) == expected


TGA_2X1 = bytes([0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 1, 0, 32, 8]) + bytes([10, 20, 30, 255, 40, 50, 60, 255])


@pytest.mark.parametrize("where", ["beside", "textures", "game path"])
def test_the_material_image_is_found_beside_the_model_or_in_the_game_folder(bpy_scene, tmp_path, where):
    """The built file's meshes name the material ``skin.tga`` (``sk/n.tga`` for a game path): found beside
    the model, else as ``textures/skin.tga`` of the game folder above it, else as the game path."""
    bpy = bpy_scene
    data, _ = build()
    game = tmp_path / "game"
    name = "sk/n.tga" if where == "game path" else "skin.tga"
    model = game / "models" / "m" / "model.iqm"
    model.parent.mkdir(parents=True)
    model.write_bytes(data.replace(b"\0skin.tga\0", f"\0{name}\0".encode()))
    image = {"beside": model.parent / name, "textures": game / "textures" / name, "game path": game / name}[where]
    image.parent.mkdir(parents=True, exist_ok=True)
    image.write_bytes(TGA_2X1)
    _, meshes = _import(bpy, model)
    shown = {o.data.materials[0].name: [n.image for n in o.data.materials[0].node_tree.nodes
                                        if n.type == "TEX_IMAGE"] for o in meshes}
    material = name.rpartition("/")[2]
    assert list(shown) == [material] and [i.filepath for i in shown[material]] == [str(image)]
    assert tuple(shown[material][0].size) == (2, 1)


def test_frames_a_header_claims_without_bytes_are_refused_before_anything_is_keyed(bpy_scene, tmp_path):
    """Frames whose poses animate no channel take no byte of the file: 400000 of them over 3 poses (1.2 M
    poses to key) are refused at once, naming the file, with nothing left."""
    bpy = bpy_scene
    data, facts = build()
    changed = bytearray(data)
    ofs = facts["offsets"]
    for p in range(3):
        struct.pack_into("<I", changed, ofs["poses"] + 88 * p + 4, 0)                   # mask: no channel
    for name, value in (("num_frames", 400_000), ("num_framechannels", 0), ("ofs_bounds", 0)):
        struct.pack_into("<I", changed, header_at(name), value)
    path = tmp_path / "huge.iqm"
    path.write_bytes(bytes(changed))
    before = datablock_counts(bpy)
    with pytest.raises(RuntimeError, match=r"huge\.iqm: 400000 frames of 3 poses are more than the 1048576 poses"):
        bpy.ops.import_scene.iqm(filepath=str(path))
    assert datablock_counts(bpy) == before
