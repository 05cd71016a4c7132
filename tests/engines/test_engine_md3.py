"""MD3 import against a real engine: DarkPlaces loads the corpus file (by its magic) and decompiles
its first frame; Blender's imported surfaces, evaluated at the first frame, are the same vertices
(exactly: both are ``xyz / 64``) and the same triangles."""
from __future__ import annotations

import pytest
from support.engine_tools import assert_same_surface, darkplaces_first_frame, world_surface
from support.environment import CORPUS

FILES = ("openarena081/models/players/major/upper.md3", "openarena085/models/map/forklift.md3",
         "nexuiz/models/turrets/plasma.md3", "openarena081/models/weapons/vulcan/vulcan.md3")


@pytest.mark.parametrize("name", FILES)
def test_darkplaces_loads_what_blender_shows(bpy_scene, tmp_path, name):
    bpy = bpy_scene
    path = CORPUS / "md3" / name
    if not path.is_file():
        pytest.skip(f"corpus file md3/{name} not found under {CORPUS}")
    found = darkplaces_first_frame(path, tmp_path)
    assert bpy.ops.import_scene.md3(filepath=str(path), scene_timing="SET", assemble_player=False) == {"FINISHED"}
    meshes = sorted((o for o in bpy.data.objects if o.type == "MESH"), key=lambda o: o["md3_surface_index"])
    positions, triangles, polygons = world_surface(bpy, meshes, bpy.context.scene.frame_start)
    assert_same_surface(found, positions, triangles, polygons, 1e-4, f"DarkPlaces {name}")
