"""MD3 from game archives and on the command line: a model and a Quake III player imported from a pk3
(images from the archive by the game's names), ``info`` of loose files and members, a whole pk3's MD3
members found by ``info``."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from support.archive_builders import write, zip_bytes
from support.blender_helpers import key_positions
from support.environment import CORPUS

from formats.md3.codec import read_md3
from formats.md3.vertices import decode_xyz

OA = CORPUS / "md3" / "openarena085" / "models" / "map"
MAJOR = CORPUS / "md3" / "openarena081" / "models" / "players" / "major"


def forklift_pk3(tmp_path: Path) -> Path:
    """baseoa/pak0.pk3 holding models/map/forklift.md3 and the JPEG its shader (forklift.tga) finds."""
    members = [("models/map/forklift.md3", (OA / "forklift.md3").read_bytes()),
               ("models/map/forklift.jpg", (OA / "forklift.jpg").read_bytes())]
    return write(tmp_path / "baseoa" / "pak0.pk3", zip_bytes(members))


def player_pk3(tmp_path: Path) -> Path:
    members = [(f"models/players/major/{p.name}", p.read_bytes()) for p in sorted(MAJOR.iterdir())]
    return write(tmp_path / "baseoa" / "pak0.pk3", zip_bytes(members))


def import_member(bpy, archive: Path, *names: str) -> set[str]:
    models = [{"name": name, "format": "", "size": 0, "problem": "", "ticked": True} for name in names]
    return bpy.ops.import_scene.game_archive(filepath=str(archive), models=models)


def test_a_member_imports_as_the_loose_file_with_its_image_from_the_archive(bpy_scene, tmp_path):
    bpy = bpy_scene
    archive = forklift_pk3(tmp_path)
    assert import_member(bpy, archive, "models/map/forklift.md3") == {"FINISHED"}
    [root] = [o for o in bpy.data.objects if "md3_root" in o]
    assert (root["archive_path"], root["archive_member"]) == (str(archive), "models/map/forklift.md3")
    model = read_md3((OA / "forklift.md3").read_bytes())
    meshes = sorted((c for c in root.children if c.type == "MESH"), key=lambda c: c["md3_surface_index"])
    for obj, surface in zip(meshes, model.surfaces, strict=True):
        key = obj.data.shape_keys.key_blocks[1].name
        np.testing.assert_allclose(key_positions(obj, key), decode_xyz(surface.xyz[0]), atol=1e-6)
        material = obj.data.materials[0]
        assert material["md3_shader"] == surface.shaders[0].name == "models/map/forklift.tga"
        image = material.node_tree.nodes["Image Texture"].image
        assert (image["source_archive"], image["source_member"]) == (str(archive), "models/map/forklift.jpg")
        assert tuple(image.size) != (0, 0)


def test_a_player_in_a_pk3_is_assembled(bpy_scene, tmp_path):
    bpy = bpy_scene
    archive = player_pk3(tmp_path)
    assert import_member(bpy, archive, "models/players/major/lower.md3") == {"FINISHED"}
    parts = {o["md3_root"]: o for o in bpy.data.objects if "md3_root" in o}
    assert set(parts) == {"lower", "upper", "head"}
    assert parts["upper"].parent.parent == parts["lower"] and parts["upper"].parent["md3_tag_name"][:9] == b"tag_torso"
    assert parts["head"].parent.parent == parts["upper"] and parts["head"].parent["md3_tag_name"][:8] == b"tag_head"
    assert all(o["archive_member"] == f"models/players/major/{p}.md3" for p, o in parts.items())
    images = {i["source_member"] for i in bpy.data.images}
    assert images == {f"models/players/major/{n}.tga" for n in ("lower", "torso", "head")}
    assert bytes(parts["lower"]["md3_animation_cfg"]) == (MAJOR / "animation.cfg").read_bytes()
    bpy.context.view_layer.objects.active = parts["upper"]
    assert bpy.ops.classic_models.md3_skin_set(set_name="blue") == {"FINISHED"}   # images again from the pk3
    [torso] = [c for c in parts["upper"].children if c.type == "MESH"]
    image = torso.data.materials[0].node_tree.nodes["Image Texture"].image
    assert (image["source_archive"], image["source_member"]) == (str(archive), "models/players/major/torsoblue.tga")


def test_a_players_three_parts_ticked_import_the_player_once(bpy_scene, tmp_path):
    bpy = bpy_scene
    archive = player_pk3(tmp_path)
    names = [f"models/players/major/{part}.md3" for part in ("head", "lower", "upper")]
    assert import_member(bpy, archive, *names) == {"FINISHED"}
    assert sorted(o["md3_root"] for o in bpy.data.objects if "md3_root" in o) == ["head", "lower", "upper"]


def test_info_of_a_loose_md3(run):
    path = MAJOR / "upper.md3"
    result = run("info", "--json", path, block_bpy=True)
    assert result.returncode == 0, result.stderr
    [info] = json.loads(result.stdout)["files"]
    model = read_md3(path.read_bytes())
    assert info["format"] == "md3" and info["version"] == 15
    assert info["counts"] == {"surfaces": 1, "tags": model.num_tags, "frames": model.num_frames,
                              "vertices": model.surfaces[0].num_verts, "triangles": len(model.surfaces[0].triangles),
                              "shaders": 1}
    assert info["details"]["tags"] == model.tag_names
    assert info["details"]["skin_sets"] == ["blue", "default", "leth", "red"]
    found = {s["name"]: s for s in info["skins"]}
    assert found["models/players/major/torso.tga"]["path"] == str(MAJOR / "torso.tga")
    assert not found["models/players/majortorso"]["found"]        # the file's own shader: a script, no image
    text = run("info", path, block_bpy=True).stdout
    assert "surface 'u_torso': 466 vertices, 540 triangles, shaders 'models/players/majortorso'" in text
    assert "skin sets: blue, default, leth, red (shown at import: default)" in text


def test_info_of_a_member_finds_its_image_in_the_archive(run, tmp_path):
    archive = forklift_pk3(tmp_path)
    result = run("info", "--json", f"{archive}:models/map/forklift.md3", block_bpy=True)
    assert result.returncode == 0, result.stderr
    [info] = json.loads(result.stdout)["files"]
    [skin] = info["skins"]
    assert skin["name"] == "models/map/forklift.tga" and skin["path"] == f"{archive}:models/map/forklift.jpg"
    assert "classic_models_archive_" not in result.stdout


def test_a_whole_pk3_is_searched_for_md3_members(run, tmp_path):
    archive = player_pk3(tmp_path)
    listed = run("info", archive, block_bpy=True).stdout
    for part in ("lower", "upper", "head"):
        assert f"{archive}:models/players/major/{part}.md3: Quake III MD3 version 15" in listed
    result = run("check", archive, block_bpy=True)
    # the skin set 'leth' names buh.tga, which OpenArena does not ship; the surfaces' own shaders are
    # not shown while a skin set is applied, so they are no warning
    assert "checked 3 file(s): 1 clean, 2 with warnings, 0 with errors" in result.stdout
    assert "majortorso" not in result.stdout


@pytest.mark.parametrize("how", ["short", "version"])
def test_info_of_a_bad_md3_names_the_field(run, tmp_path, how):
    data = bytearray((MAJOR / "head.md3").read_bytes())
    if how == "short":
        data = data[:200]
    else:
        data[4:8] = (16).to_bytes(4, "little")
    path = write(tmp_path / "bad.md3", bytes(data))
    result = run("info", "--json", path, block_bpy=True)
    assert result.returncode == 1
    [problem] = json.loads(result.stdout)["files"][0]["problems"]
    assert problem["severity"] == "error" and problem["field"]


BASEOA = Path("/usr/share/games/openarena/baseoa")
INSTALL = ("apt-get install openarena-data openarena-081-players openarena-085-data openarena-088-data "
           "(Debian's OpenArena data, GPL-2+)")


def baseoa_md3() -> dict[Path, list[str]]:
    """The MD3 members of each installed OpenArena pk3."""
    import zipfile
    out = {}
    for pk3 in sorted(BASEOA.glob("*.pk3")) if BASEOA.is_dir() else []:
        names = [n for n in zipfile.ZipFile(pk3).namelist() if n.lower().endswith(".md3")]
        if names:
            out[pk3] = names
    return out


@pytest.mark.parametrize("pk3", [pytest.param(p, marks=pytest.mark.sweep, id=p.name) for p in sorted(baseoa_md3())] or
                         [pytest.param(None, marks=pytest.mark.skip(reason=f"OpenArena's data not installed: {INSTALL}"),
                                       id="none")])
def test_every_md3_of_openarenas_pk3s_imports_from_its_game_folder(bpy_scene, pk3):
    """Every MD3 member, players assembled (their parts then not imported again), geometry as the file
    says; images come from any pk3 of the game folder (textures live in other paks than models)."""
    bpy = bpy_scene
    names = baseoa_md3()[pk3]
    assert import_member(bpy, pk3, *names) == {"FINISHED"}
    roots = [o for o in bpy.data.objects if "md3_root" in o]
    assert {r["archive_member"] for r in roots} >= set(names)   # (parts of a player may come from other pk3s)
    from zipfile import ZipFile
    for root in roots[::7]:     # a player's parts come from the pk3 that wins in the game folder
        with ZipFile(root["archive_path"]) as archive:
            model = read_md3(archive.read(root["archive_member"]))
            meshes = sorted((c for c in root.children if c.type == "MESH"), key=lambda c: c["md3_surface_index"])
            for obj, surface in zip(meshes, model.surfaces, strict=True):
                last = obj.data.shape_keys.key_blocks[-1].name
                np.testing.assert_allclose(key_positions(obj, last), decode_xyz(surface.xyz[-1]), atol=1e-6)
    found = [i for i in bpy.data.images if i.get("source_archive")]
    assert found and all(Path(i["source_archive"]).parent == BASEOA for i in found)
