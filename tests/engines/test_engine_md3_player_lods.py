"""In ioquake3 (OpenArena): a player an MD3 import assembled, with its levels of detail, exported as a player
under a new name loads with every part at three LODs (``modellist``'s LOD count), its rendered icon and
its skins, without falling back to the default player or warning about its files."""
from __future__ import annotations

from support.engine_tools import require
from support.environment import corpus
from support.openarena_tools import openarena_models


def test_openarena_loads_an_imported_player_with_its_lods(bpy_scene, tmp_path):
    require("openarena")
    bpy = bpy_scene
    source = corpus("md3/openarena081/models/players/merman/lower.md3").parent
    assert bpy.ops.import_scene.md3(filepath=str(source / "lower.md3"), load_lods=True) == {"FINISHED"}
    lower = next(o for o in bpy.data.objects if o.get("md3_root") == "lower" and not o.get("md3_lod"))
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == lower)
    folder = tmp_path / "mermanlod"
    folder.mkdir()
    assert bpy.ops.export_scene.md3(filepath=str(folder / "lower.md3"), player=True) == {"FINISHED"}
    files = {f"models/players/mermanlod/{p.name}": p for p in folder.iterdir()}
    models, log = openarena_models(files, tmp_path, "model", "mermanlod", "headmodel", "mermanlod")
    for part in ("lower", "upper", "head"):
        name = f"models/players/mermanlod/{part}.md3"
        size = sum((folder / f).stat().st_size for f in (f"{part}.md3", f"{part}_1.md3", f"{part}_2.md3"))
        assert models.get(name) == (size, 3), log[-3000:]        # R_Modellist_f: every LOD's bytes
    assert not any(name.startswith("models/players/sarge/") for name in models), "the game fell back to sarge"
    assert not [line for line in log.splitlines() if "mermanlod" in line and "WARNING" in line]
    assert "Failed to load" not in log and "Error parsing animation file" not in log
