"""MD3 in Blender: every corpus file imported and compared with the file (vertices of every sampled
frame, triangles, UVs, normals, tag empties per frame, the records kept), a Quake III player assembled
as cgame places its parts, skins and skin sets, levels of detail, bad files."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from support.blender_helpers import corner_uvs, datablock_counts, key_positions, polygon_vertices
from support.environment import CORPUS, corpus_params

from formats.md3.codec import read_md3
from formats.md3.records import FRAME, TAG, XYZ_NORMAL
from formats.md3.tags import tag_matrices
from formats.md3.vertices import NORMAL_STEP_RADIANS, decode_normals, decode_xyz

FILES = corpus_params("md3/**/*.md3")
PLAYERS = CORPUS / "md3" / "openarena081" / "models" / "players"


def import_md3(bpy, path: Path, **options):
    assert bpy.ops.import_scene.md3(filepath=str(path), scene_timing="SET", **options) == {"FINISHED"}
    return bpy.context.view_layer.objects.active


def roots(bpy) -> dict[str, object]:
    """Model roots by the part or file stem they stand for."""
    return {o.name: o for o in bpy.data.objects if "md3_root" in o}


def surfaces_of(root) -> list:
    return sorted((c for c in root.children if c.type == "MESH"), key=lambda c: c["md3_surface_index"])


def tags_of(root) -> list:
    return sorted((c for c in root.children if "md3_tag_index" in c), key=lambda c: c["md3_tag_index"])


def world(obj) -> np.ndarray:
    return np.array(obj.matrix_world, dtype=np.float64)


def sampled(count: int) -> list[int]:
    return sorted({0, count // 2, count - 1})


def check_model(bpy, root, path: Path) -> None:
    """Everything the import made of the file at ``path`` against the file."""
    data = path.read_bytes()
    model = read_md3(data)
    scene = bpy.context.scene
    start = root.classic_model.frame_offset
    assert [f.file_name for f in root.classic_model.frames] == model.frame_names
    offsets = model.layout.offsets
    assert bytes(root["md3_frames"]) == data[offsets["ofs_frames"]:offsets["ofs_frames"] + model.num_frames * FRAME.itemsize]
    assert bytes(root["md3_tags"]) == data[offsets["ofs_tags"]:
                                           offsets["ofs_tags"] + model.num_frames * model.num_tags * TAG.itemsize]
    meshes = surfaces_of(root)
    assert [m["md3_surface_index"] for m in meshes] == list(range(len(model.surfaces)))
    for obj, surface in zip(meshes, model.surfaces):
        mesh = obj.data
        keys = [k.name for k in mesh.shape_keys.key_blocks][1:]
        assert keys == [f.shape_key for f in root.classic_model.frames]
        for f in sampled(model.num_frames):
            np.testing.assert_allclose(key_positions(obj, keys[f]), decode_xyz(surface.xyz[f]), atol=1e-6)
        tris = np.asarray(surface.triangles).reshape(-1, 3)
        faced = tris[[len(set(t)) == 3 for t in tris]]
        np.testing.assert_array_equal(polygon_vertices(mesh), faced[:, ::-1])
        st = surface.st[faced[:, ::-1]]
        np.testing.assert_allclose(corner_uvs(mesh), np.stack([st[..., 0], 1 - st[..., 1]], -1), atol=1e-6)
        if len(faced):
            normals = np.array([c.vector for c in mesh.corner_normals]).reshape(-1, 3, 3)
            stored = decode_normals(surface.normal[0])[faced[:, ::-1]].astype(np.float64)
            stored /= np.linalg.norm(stored, axis=-1, keepdims=True)
            angle = np.arccos(np.clip(np.sum(normals * stored, axis=-1), -1, 1))
            # Blender keeps no custom normal in a fan around a face of zero area (coincident vertices)
            xyz = decode_xyz(surface.xyz[0]).astype(np.float64)[faced]
            flat = np.linalg.norm(np.cross(xyz[:, 1] - xyz[:, 0], xyz[:, 2] - xyz[:, 0]), axis=1) < 1e-9
            near_flat = np.isin(faced[:, ::-1], faced[flat])
            assert angle[~near_flat].max(initial=0) < NORMAL_STEP_RADIANS
        records = np.zeros(surface.normal.shape, XYZ_NORMAL)
        records["xyz"], records["normal"] = surface.xyz, surface.normal
        assert bytes(mesh["md3_xyz_normals"]) == records.tobytes()
    empties = tags_of(root)
    assert [bytes(e["md3_tag_name"]) for e in empties] == [bytes(f) for f in model.tag_name_raw[0]]
    expected = tag_matrices(model.tag_origin, model.tag_axis)
    for f in sampled(model.num_frames):
        scene.frame_set(start + f)
        base = world(root)
        for t, empty in enumerate(empties):
            np.testing.assert_allclose(world(empty), base @ expected[f, t], atol=2e-5)


@pytest.mark.parametrize("path", FILES)
def test_every_corpus_file_matches_the_file(bpy_scene, path):
    bpy = bpy_scene
    import_md3(bpy, path, assemble_player=False)
    found = roots(bpy)
    assert len(found) == 1
    root = next(iter(found.values()))
    assert root.classic_model.source_format == "MD3" and root["md3_root"] == ""
    check_model(bpy, root, path)


def reference_cfg(path: Path) -> list[tuple[str, int, int]]:
    """(name, first, count) of each animation line of a player's animation.cfg (the name from the comment)."""
    out = []
    for line in path.read_text("latin-1").splitlines():
        match = re.match(r"\s*(\d+)\s+(-?\d+)\s+\d+\s+[\d.]+\s*//\s*(\w+)", line)
        if match:
            out.append((match.group(3), int(match.group(1)), int(match.group(2))))
    return out


def test_player_is_assembled_on_its_tags(bpy_scene):
    bpy = bpy_scene
    folder = PLAYERS / "major"
    lower_root = import_md3(bpy, folder / "lower.md3")
    parts = {r["md3_root"]: r for r in roots(bpy).values()}
    assert set(parts) == {"lower", "upper", "head"} and lower_root == parts["lower"]
    models = {part: read_md3((folder / f"{part}.md3").read_bytes()) for part in parts}
    for part, root in parts.items():
        check_model(bpy, root, folder / f"{part}.md3")

    def tag(part, name, frame):
        model = models[part]
        frame = min(frame, model.num_frames - 1)
        index = model.tag_names.index(name)
        return tag_matrices(model.tag_origin[frame, index], model.tag_axis[frame, index])

    start = parts["lower"].classic_model.frame_offset
    longest = max(m.num_frames for m in models.values())
    for f in sorted({0, 1, 40, 100, longest - 1}):
        bpy.context.scene.frame_set(start + f)
        torso = tag("lower", "tag_torso", f)          # CG_PositionRotatedEntityOnTag(&torso, &legs, ...)
        head = torso @ tag("upper", "tag_head", f)    # CG_PositionRotatedEntityOnTag(&head, &torso, ...)
        np.testing.assert_allclose(world(parts["upper"]), torso, atol=2e-5)
        np.testing.assert_allclose(world(parts["head"]), head, atol=2e-5)
        head_mesh = surfaces_of(parts["head"])[0]
        np.testing.assert_allclose(world(head_mesh), head, atol=2e-5)
    cfg = reference_cfg(folder / "animation.cfg")
    first = {name: f for name, f, _ in cfg}
    skip = first["LEGS_WALKCR"] - first["TORSO_GESTURE"]
    for part, kinds, offset in (("lower", ("BOTH", "LEGS"), skip), ("upper", ("BOTH", "TORSO"), 0)):
        listed = {a.name: a.frame_start - start for a in parts[part].classic_model.animations}
        wanted = {n: f - (offset if n.startswith("LEGS") else 0) for n, f, _ in cfg if n.split("_")[0] in kinds}
        assert listed == wanted
    markers = {(m.name, m.frame) for m in bpy.context.scene.timeline_markers}
    assert ("LEGS_WALK", start + first["LEGS_WALK"] - skip) in markers
    assert ("TORSO_ATTACK", start + first["TORSO_ATTACK"]) in markers
    assert bytes(parts["lower"]["md3_animation_cfg"]) == (folder / "animation.cfg").read_bytes()


def test_player_parts_alone_when_not_assembled(bpy_scene):
    bpy = bpy_scene
    import_md3(bpy, PLAYERS / "major" / "lower.md3", assemble_player=False)
    assert [r["md3_root"] for r in roots(bpy).values()] == [""]


def test_selecting_the_three_parts_imports_the_player_once(bpy_scene):
    bpy = bpy_scene
    folder = PLAYERS / "penguin"
    files = [{"name": f"{p}.md3"} for p in ("head", "lower", "upper")]
    assert bpy.ops.import_scene.md3(directory=str(folder), files=files) == {"FINISHED"}
    assert sorted(r["md3_root"] for r in roots(bpy).values()) == ["head", "lower", "upper"]


def test_default_skin_set_is_shown_and_every_set_kept(bpy_scene):
    bpy = bpy_scene
    folder = PLAYERS / "major"
    import_md3(bpy, folder / "lower.md3")
    for root in roots(bpy).values():
        part = root["md3_root"]
        sets = json.loads(root["md3_skins"])
        names = sorted(p.name[len(part) + 1:-len(".skin")] for p in folder.glob(f"{part}_*.skin"))
        assert sorted(sets) == names and root["md3_skin_set"] == "default"
        for name in names:
            assert bytes.fromhex(sets[name]["raw"]) == (folder / f"{part}_{name}.skin").read_bytes()
        lines = dict(line.split(",", 1) for line in (folder / f"{part}_default.skin").read_text().split()
                     if "," in line and not line.startswith("tag_"))
        model = read_md3((folder / f"{part}.md3").read_bytes())
        for obj, surface in zip(surfaces_of(root), model.surfaces, strict=True):
            material = obj.data.materials[0]
            shader = lines[surface.name.lower()]
            assert material["md3_skin_shader"] == shader                  # shown
            assert material["md3_shader"] == surface.shaders[0].name      # the file's, for the export
            image = material.node_tree.nodes["Image Texture"].image
            assert Path(image["source_path"]).resolve() == (CORPUS / "md3" / "openarena081" / shader).resolve()


def test_darkplaces_numbered_skins(bpy_scene):
    bpy = bpy_scene
    path = CORPUS / "md3" / "nexuiz" / "models" / "gibs" / "arm.md3"
    root = import_md3(bpy, path)
    assert sorted(json.loads(root["md3_skins"])) == ["0", "1", "2"] and root["md3_skin_set"] == "0"


def test_shader_without_extension_finds_the_tga(bpy_scene, tmp_path):
    """R_LoadImage: a name without a loader's extension tries tga, jpg, jpeg, png, ... in that order."""
    bpy = bpy_scene
    source = CORPUS / "md3" / "openarena081" / "models" / "weapons" / "vulcan"
    folder = tmp_path / "baseq3" / "models" / "weapons" / "vulcan"
    folder.mkdir(parents=True)
    model = read_md3((source / "vulcan.md3").read_bytes())
    shutil.copy(source / "vulcan.md3", folder)
    shutil.copy(source / "skin.tga", folder / "skin.jpg")     # a JPEG name that holds a TGA: found by name
    shutil.copy(source / "skin.tga", folder / "skin.tga")
    root = import_md3(bpy, folder / "vulcan.md3")
    shaders = {s.shaders[0].name for s in model.surfaces}
    found = {o.data.materials[0]["md3_shader"]: o.data.materials[0].node_tree.nodes.get("Image Texture")
             for o in surfaces_of(root)}
    assert set(found) == shaders
    for shader, node in found.items():
        if shader.rpartition("/")[2].split(".")[0] == "skin":
            assert Path(node.image["source_path"]).name == "skin.tga"


def test_levels_of_detail(bpy_scene):
    bpy = bpy_scene
    path = PLAYERS / "merman" / "head.md3"
    root = import_md3(bpy, path, load_lods=True)
    assert root["md3_lod"] == 0
    lods = sorted((c for c in root.children if "md3_root" in c), key=lambda c: c["md3_lod"])
    assert [c["md3_lod"] for c in lods] == [1, 2]
    collection = bpy.data.collections["head LODs"]
    assert {lod.users_collection[0] for lod in lods} == {collection}
    assert collection.hide_viewport and collection.hide_render
    collection.hide_viewport = False            # hidden objects are not evaluated
    for lod in lods:
        check_model(bpy, lod, PLAYERS / "merman" / f"head_{lod['md3_lod']}.md3")
    bpy.ops.wm.read_homefile(use_empty=True)
    root = import_md3(bpy, path)
    assert not [c for c in root.children if "md3_root" in c]


def broken(data: bytes, how: str) -> bytes:
    if how.startswith("cut"):
        return data[:int(how[3:])]
    out = bytearray(data)
    out[76:80] = (10 ** 6).to_bytes(4, "little")        # num_frames: far past the file
    return bytes(out)


@pytest.mark.parametrize("how", ["cut10", "cut108", "cut500", "frames"])
def test_bad_file_reports_and_leaves_nothing(bpy_scene, tmp_path, how):
    bpy = bpy_scene
    (tmp_path / "cut.md3").write_bytes(broken((PLAYERS / "major" / "head.md3").read_bytes(), how))
    before = datablock_counts(bpy)
    with pytest.raises(RuntimeError, match="cut.md3") as raised:
        bpy.ops.import_scene.md3(filepath=str(tmp_path / "cut.md3"))
    assert "internal error" not in str(raised.value) and "Traceback" not in str(raised.value)
    assert datablock_counts(bpy) == before


def test_failure_of_a_player_part_removes_every_part(bpy_scene, tmp_path):
    bpy = bpy_scene
    folder = tmp_path / "models" / "players" / "major"
    shutil.copytree(PLAYERS / "major", folder)
    (folder / "head.md3").write_bytes(b"IDP3" + b"\0" * 20)
    before = datablock_counts(bpy)
    with pytest.raises(RuntimeError, match="head.md3"):
        bpy.ops.import_scene.md3(filepath=str(folder / "lower.md3"))
    assert datablock_counts(bpy) == before


def test_another_skin_set_is_shown_from_the_sidebar(bpy_scene):
    bpy = bpy_scene
    folder = PLAYERS / "major"
    import_md3(bpy, folder / "lower.md3")
    upper = next(r for r in roots(bpy).values() if r["md3_root"] == "upper")
    torso = surfaces_of(upper)[0]
    bpy.context.view_layer.objects.active = torso            # a surface finds its model root
    assert bpy.ops.classic_models.md3_skin_set(set_name="red") == {"FINISHED"}
    material = torso.data.materials[0]
    assert material["md3_skin_shader"] == "models/players/major/torsored.tga" and upper["md3_skin_set"] == "red"
    assert material["md3_shader"] == "models/players/majortorso"          # the file's shader is kept
    assert Path(material.node_tree.nodes["Image Texture"].image["source_path"]).name == "torsored.tga"
    assert bpy.ops.classic_models.md3_skin_set(set_name="") == {"FINISHED"}      # the file's own shader
    material = torso.data.materials[0]
    assert material["md3_shader"] == "models/players/majortorso" and "md3_skin_shader" not in material
    materials = len(bpy.data.materials)
    assert bpy.ops.classic_models.md3_skin_set(set_name="default") == {"FINISHED"}
    assert torso.data.materials[0]["md3_skin_shader"] == "models/players/major/torso.tga"
    assert len(bpy.data.materials) == materials                # the default set's material is reused
    with pytest.raises(RuntimeError, match="no skin set 'green'"):
        bpy.ops.classic_models.md3_skin_set(set_name="green")
