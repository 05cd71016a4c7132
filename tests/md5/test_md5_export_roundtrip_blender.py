"""An MD5 pair imported with the product's importer (h/md5import) and exported untouched comes back as its
files, byte for byte (common/md5/contract.py): one anim at a time (the other actions removed), Frames:
Actions at every scene frame, as the import placed the anim's frames. Skips, saying why, until the MD5
importer is in the checkout (checked with h/md5import applied: all six pass on 5.2)."""
from __future__ import annotations

import pytest
from support.actions import select_only
from support.environment import corpus_files

PAIRS = [("props/flag/mesh.md5mesh", "anim.md5anim"), ("unnamed/door01/mesh.md5mesh", "close.md5anim"),
         ("unnamed/door01/mesh.md5mesh", "open.md5anim"), ("luckystrike/banner01/banner.md5mesh", "banner.md5anim"),
         ("weapons/zapper/item.md5mesh", "reload.md5anim"), ("weapons/sword/sword.md5mesh", "sword-idle.md5anim")]


def _params():
    out = []
    for mesh, anim in PAIRS:
        found = corpus_files(f"md5/redeclipse/data/{mesh}")
        out.append(pytest.param(found[0] if found else None, anim, id=f"{mesh.split('/')[-2]}-{anim}",
                                marks=pytest.mark.skipif(not found, reason=f"corpus {mesh} not found")))
    return out


@pytest.mark.parametrize("source, anim_name", _params())
def test_an_imported_pair_exports_as_its_files(bpy_scene, tmp_path, source, anim_name):
    bpy = bpy_scene
    if not hasattr(bpy.types, "IMPORT_SCENE_OT_md5"):
        pytest.skip("the MD5 importer (h/md5import) is not in this checkout yet")
    assert bpy.ops.import_scene.md5(filepath=str(source), find_anims="FOLDER") == {"FINISHED"}
    chosen = [a for a in bpy.data.actions if a.get("md5_anim_file", "").endswith(anim_name)]
    assert len(chosen) == 1
    for action in list(bpy.data.actions):
        if action != chosen[0]:
            bpy.data.actions.remove(action)
    select_only(bpy, [o for o in bpy.data.objects if o.type == "MESH"])
    path = tmp_path / "out.md5mesh"
    assert bpy.ops.export_scene.md5(filepath=str(path), frame_source="ACTIONS", frame_rate="SCENE") == {"FINISHED"}
    assert path.read_bytes() == source.read_bytes()
    assert path.with_suffix(".md5anim").read_bytes() == (source.parent / anim_name).read_bytes()
