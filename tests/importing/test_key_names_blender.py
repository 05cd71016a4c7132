"""Shape keys named before they are added (issue 33): the import gives every frame's key the name
Blender itself would give it (``name``, then ``name.001``, ``name.002``... for frames that share a
name), checked against keys Blender names one by one, on tricky lists and on an imported model whose
frames all share one name, like the Nexuiz turret's 155 "(from 3DSMax)"."""
from __future__ import annotations

import importlib

import numpy as np
import pytest
from support.md2_synthetic import grid_model
from support.operators import import_md2

from formats.md2.codec import serialize_md2

TRICKY = [
    ["run", "run", "run.001", "run", "Basis", "Basis", "run.001"],
    ["a", "a.", "a.", "a", "a1", "a1", "a1.x", "a1.x"],
    ["same"] * 40 + ["same.020", "same"],
    ["x" * 60, "x" * 60, "é" * 29, "é" * 29],               # 64 bytes with the suffix: left to Blender
    ["run.5", "run.5", "run"],                              # ends in a number: left to Blender
    ["", "", "k"],                                          # empty: Blender's "Key"
]


def names_blender_gives(bpy, names: list[str]) -> list[str]:
    obj = bpy.data.objects.new("names", bpy.data.meshes.new("names"))
    obj.shape_key_add(name="Basis", from_mix=False)
    return [obj.shape_key_add(name=name, from_mix=False).name for name in names]


@pytest.mark.parametrize("names", TRICKY, ids=range(len(TRICKY)))
def test_names_are_blenders_or_left_to_it(bpy_scene, extension, names):
    animation = importlib.import_module(f"{extension}.importers.frame_animation")
    unique = animation.unique_key_names(names)
    expected = names_blender_gives(bpy_scene, names)
    obj = bpy_scene.data.objects.new("keys", bpy_scene.data.meshes.new("keys"))
    keys = animation.add_frame_shape_keys(obj, names, np.zeros((len(names), 0, 3), dtype=np.float32))
    assert [key.name for key in keys] == expected
    assert unique is None or unique == expected
    assert all(key.value == 0.0 for key in obj.data.shape_keys.key_blocks)


def test_frames_sharing_a_name_import_with_blenders_names(bpy_scene, tmp_path):
    model = grid_model(frames=160)
    model.frame_names = ["(from 3DSMax)"] * len(model.frame_names)
    model.frame_name_raw = None
    path = tmp_path / "same_names.md2"
    path.write_bytes(serialize_md2(model))
    import_md2(bpy_scene, path)
    obj = bpy_scene.context.view_layer.objects.active
    keys = [block.name for block in obj.data.shape_keys.key_blocks][1:]
    assert keys == names_blender_gives(bpy_scene, model.frame_names)
    assert keys[:3] == ["(from 3DSMax)", "(from 3DSMax).001", "(from 3DSMax).002"] and len(set(keys)) == 160
