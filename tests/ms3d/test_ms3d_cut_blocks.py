"""MS3D files cut short inside an optional block (issue 19: four models of a released game end 3 bytes
into their vertex-extras block): they import with a warning naming the block, its offset and what was
missing, and an untouched export writes the file's bytes again; a cut inside the required blocks is
still refused with nothing left in the scene. Files built here from the test rig of support/ms3d_models.py."""
from __future__ import annotations

import re

import numpy as np
import pytest
from support.blender_helpers import reported
from support.ms3d_models import tiny_rig
from support.operators import counts, export_ms3d

from formats.ms3d.records import Ms3dJointExtras, Ms3dModelExtras
from formats.ms3d.write import serialize_ms3d


def all_blocks() -> tuple[bytes, dict[str, int]]:
    """The rig with all four optional blocks, and the offset each optional block starts at."""
    model = tiny_rig()
    starts = {}
    blocks = (("comments", "comments"), ("vertex extras", "vertex_extras"), ("joint extras", "joint_extras"),
              ("model extras", "model_extras"))
    model.joint_extras = Ms3dJointExtras(np.float32([[1, 0, 0], [0, 0.5, 1]]), 1)
    model.model_extras = Ms3dModelExtras(np.float32(2.5), 1, np.float32(0.25), 1)
    kept = {attribute: getattr(model, attribute) for _, attribute in blocks}
    for name, attribute in blocks:                 # each block's start: the file without it and what follows
        for later in blocks[[n for n, _ in blocks].index(name):]:
            setattr(model, later[1], None)
        starts[name] = len(serialize_ms3d(model))
        for _, attribute_ in blocks:
            setattr(model, attribute_, kept[attribute_])
    return serialize_ms3d(model), starts


CUTS = {"comments": 9, "vertex extras": 4 + 3, "joint extras": 10, "model extras": 6}


@pytest.mark.parametrize("block", list(CUTS))
def test_cut_optional_block_imports_with_a_warning_and_exports_byte_for_byte(bpy_scene, tmp_path, capfd, block):
    bpy = bpy_scene
    data, starts = all_blocks()
    start = starts[block]
    cut = data[:start + CUTS[block]]
    (tmp_path / "cut.ms3d").write_bytes(cut)
    capfd.readouterr()
    assert bpy.ops.import_scene.ms3d(filepath=str(tmp_path / "cut.ms3d")) == {"FINISHED"}
    out = capfd.readouterr().out
    warned, messages = reported(out)
    assert len([line for line in warned if "cut short" in line]) == 1, out      # one popup line ...
    warning = [line for line in messages if "cut short" in line]                 # ... for the whole message
    assert len(warning) == 1, out
    assert f"cut.ms3d: the {block} block at offset {start} is cut short" in warning[0]
    assert re.search(r"needs? (at least )?\d+ bytes at offset \d+, file has " + str(len(cut)), warning[0])
    assert f"its {CUTS[block]} bytes are kept unread" in warning[0]
    assert len([o for o in bpy.context.scene.objects if o.type == "MESH"]) == 1
    export_ms3d(bpy, tmp_path / "again.ms3d")
    assert (tmp_path / "again.ms3d").read_bytes() == cut


@pytest.mark.parametrize("where", ["triangles", "joints"])
def test_cut_inside_required_blocks_is_refused(bpy_scene, tmp_path, where):
    bpy = bpy_scene
    data, starts = all_blocks()
    at = {"triangles": 14 + 6 * 15 + 10, "joints": starts["comments"] - 20}[where]
    (tmp_path / "cut.ms3d").write_bytes(data[:at])
    before = counts(bpy)
    with pytest.raises(RuntimeError, match="cut.ms3d"):
        bpy.ops.import_scene.ms3d(filepath=str(tmp_path / "cut.ms3d"))
    assert counts(bpy) == before
