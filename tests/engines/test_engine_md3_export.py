"""Proof in real programs that MD3 exports load as Blender shows them: DarkPlaces decompiles the first
frame (vertex for vertex within half a 1/64 step), OpenArena (ioquake3) loads an exported weapon in
place of its machine gun without a warning, and Assimp reads every export (its faces and meshes are the
file's triangles and surfaces)."""
from __future__ import annotations

import numpy as np
import pytest
from support.engine_tools import (
    assert_same_surface,
    assimp_info,
    darkplaces_first_frame,
    require,
    select_only,
    world_surface,
)
from support.md3_scenes import column_model, player_model
from support.openarena_tools import complaints, openarena_models

from formats.md3.codec import read_md3

TOLERANCE = 1.0 / 128 + 1e-4


def export(bpy, objects, path, **options):
    select_only(bpy, objects)
    options.setdefault("frame_rate", "SCENE")
    assert bpy.ops.export_scene.md3(filepath=str(path), **options) == {"FINISHED"}
    return path


def assimp_reads(path) -> None:
    model = read_md3(path.read_bytes())
    info = assimp_info(path)
    assert info.faces == sum(len(s.triangles) for s in model.surfaces)
    assert info.meshes == len(model.surfaces)


@pytest.mark.parametrize("frame", [1, 4])
def test_darkplaces_loads_the_frame_blender_shows(bpy_scene, tmp_path, frame):
    require("darkplaces-server")
    bpy = bpy_scene
    obj, rig, tag, _ = column_model(bpy)
    scene = bpy.context.scene
    scene.frame_start = scene.frame_end = frame          # DarkPlaces decompiles a model's first frame
    path = export(bpy, [obj, tag], tmp_path / f"column{frame}.md3")
    loaded = darkplaces_first_frame(path, tmp_path)
    positions, triangles, polygons = world_surface(bpy, [obj], frame)
    assert_same_surface(loaded, positions, triangles, polygons, TOLERANCE, f"DarkPlaces MD3 frame {frame}")
    if frame != 1:
        assert np.abs(positions - world_surface(bpy, [obj], 1)[0]).max() > 0.3     # really another pose
    assimp_reads(path)


def test_assimp_reads_actions_and_tags_only_exports(bpy_scene, tmp_path):
    require("assimp")
    bpy = bpy_scene
    obj, rig, tag, _ = column_model(bpy, shape_key=False, actions=("bend", "wave"), timeline_action="")
    assimp_reads(export(bpy, [obj, tag], tmp_path / "actions.md3", frame_source="ACTIONS"))
    mirrored = export(bpy, [obj], tmp_path / "scaled.md3", scale=2.5, split_normals=True)
    assimp_reads(mirrored)


def test_openarena_loads_an_exported_weapon_without_a_warning(bpy_scene, tmp_path):
    require("openarena")
    bpy = bpy_scene
    obj, rig, tag, _ = column_model(bpy, shape_key=False, timeline_action="")
    for material, shader in zip(obj.data.materials, ("models/weapons2/machinegun/skin",
                                                     "models/weapons2/machinegun/sight")):
        material.name = shader                           # the stock machine gun's shaders
    tag.name = "tag_flash"
    obj.scale = (4.0, 4.0, 4.0)
    bpy.context.scene.frame_end = 1
    path = export(bpy, [obj, tag], tmp_path / "machinegun.md3")
    assert read_md3(path.read_bytes()).tag_names == ["tag_flash"]
    name = "models/weapons2/machinegun/machinegun.md3"
    models, log = openarena_models({name: path}, tmp_path)
    assert models.get(name) == (path.stat().st_size, 1), f"the game did not load the export:\n{log[-3000:]}"
    assert not complaints(log, name), complaints(log, name)
    assimp_reads(path)


def test_openarena_plays_an_exported_player(bpy_scene, tmp_path):
    """The player export's folder as models/players/blendman, chosen with the model cvars: the game loads
    its three parts (and not its default player, sarge, which it falls back to when a part, a skin,
    animation.cfg or the icon fails) and warns about none of its files."""
    require("openarena")
    bpy = bpy_scene
    objects, rig, actions = player_model(bpy)
    select_only(bpy, list(objects.values()))
    folder = tmp_path / "blendman"
    folder.mkdir()
    assert bpy.ops.export_scene.md3(filepath=str(folder / "lower.md3"), player=True) == {"FINISHED"}
    files = {f"models/players/blendman/{p.name}": p for p in folder.iterdir()}
    assert {"animation.cfg", "icon_default.tga", "head_default.skin"} <= {p.name for p in folder.iterdir()}
    models, log = openarena_models(files, tmp_path, "model", "blendman", "headmodel", "blendman")
    for part in ("lower", "upper", "head"):
        name = f"models/players/blendman/{part}.md3"
        assert models.get(name) == ((folder / f"{part}.md3").stat().st_size, 1), log[-3000:]
    assert not any(name.startswith("models/players/sarge/") for name in models), "the game fell back to sarge"
    assert not [line for line in log.splitlines() if "blendman" in line and "WARNING" in line]
    assert "Failed to load" not in log and "Error parsing animation file" not in log
    # Assimp reads a player folder whole: the three parts joined on their tags
    parts = [read_md3((folder / f"{part}.md3").read_bytes()) for part in ("lower", "upper", "head")]
    info = assimp_info(folder / "lower.md3")
    assert info.faces == sum(len(s.triangles) for m in parts for s in m.surfaces) and info.meshes == 3
    assert "tag_torso" in info.log and "tag_head" in info.log


def test_an_mdl_with_its_enhanced_md3_shows_the_same_frames_in_darkplaces(bpy_scene, tmp_path):
    """MDL and enhanced MD3 in one export: the same frame count and names, a skin file naming a texture
    that exists for every surface, and DarkPlaces decompiles both as Blender shows the model (each within
    its own format's step)."""
    require("darkplaces-server")
    bpy = bpy_scene
    obj, rig, tag, _ = column_model(bpy)
    for material in obj.data.materials:
        image = bpy.data.images.new(f"{material.name}_skin", 8, 8)
        if not material.node_tree:
            material.use_nodes = True
        node = material.node_tree.nodes.new("ShaderNodeTexImage")
        node.image = image
        material.node_tree.links.new(node.outputs["Color"], material.node_tree.nodes["Principled BSDF"].inputs[0])
    progs = tmp_path / "id1" / "progs"
    progs.mkdir(parents=True)
    select_only(bpy, [obj])
    assert bpy.ops.export_scene.mdl(filepath=str(progs / "column.mdl"), enhanced_md3=True,
                                    frame_rate="SCENE") == {"FINISHED"}
    from formats.md3.skin_file import parse_skin
    from formats.mdl.codec import parse_mdl
    mdl = parse_mdl((progs / "column.mdl").read_bytes())
    md3 = read_md3((progs / "column.md3").read_bytes())
    assert md3.frame_names == mdl.pose_names and md3.num_frames == 5
    skin = parse_skin((progs / "column.md3_0.skin").read_bytes())
    assert sorted(e.surface for e in skin.entries) == sorted(s.name.lower() for s in md3.surfaces)
    for entry in skin.entries:
        assert (tmp_path / "id1" / entry.shader).is_file(), entry.shader
    positions, triangles, polygons = world_surface(bpy, [obj], 1)
    loaded = darkplaces_first_frame(progs / "column.md3", tmp_path / "md3")
    assert_same_surface(loaded, positions, triangles, polygons, TOLERANCE, "DarkPlaces enhanced MD3")
    every = np.concatenate([world_surface(bpy, [obj], f)[0] for f in range(1, 6)])   # the MDL's grid spans them
    step = np.ptp(every, axis=0) / 255 / 2 + 1e-4
    classic = darkplaces_first_frame(progs / "column.mdl", tmp_path / "mdl")
    assert_same_surface(classic, positions, triangles, polygons, step, "DarkPlaces MDL")
