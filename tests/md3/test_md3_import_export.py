"""Every corpus MD3 through the MD3 importer and back through the exporter, both with their default
options, comes back byte for byte: what the import leaves (common/md3/contract.py) and what the
export reads agree, down to the layout, names, filler and tail. A player's part is imported assembled
(upper on lower's tag_torso), and only its own root is exported."""
from __future__ import annotations

import pytest
from support.environment import corpus_params


@pytest.fixture
def md3_import(bpy_scene):
    import bpy
    if not hasattr(bpy.types, "IMPORT_SCENE_OT_md3") and "md3" not in dir(bpy.ops.import_scene):
        pytest.skip("the MD3 importer (branch h/md3import) is not in this checkout yet")
    return bpy


@pytest.mark.parametrize("path", corpus_params("md3/**/*.md3"))
def test_imported_md3_exports_byte_for_byte(md3_import, tmp_path, path):
    bpy = md3_import
    assert bpy.ops.import_scene.md3(filepath=str(path)) == {"FINISHED"}
    roots = [o for o in bpy.data.objects if o.get("md3_root") is not None and o.get("source_file") == str(path)]
    assert len(roots) == 1, [o.name for o in bpy.data.objects if o.get("md3_root") is not None]
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == roots[0])
    out = tmp_path / path.name
    assert bpy.ops.export_scene.md3(filepath=str(out)) == {"FINISHED"}
    assert out.read_bytes() == path.read_bytes()
