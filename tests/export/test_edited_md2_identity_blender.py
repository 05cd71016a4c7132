"""An edited MD2 export writes what the previous code's algorithms give (issue 33's speed work), end to end in
Blender: a grid model imported, then scaled (the benchmark's edit) or turned and squashed (normals carried through
the inverse transpose), exported from the timeline; the positions the exporter sampled are taken on their way to
the normals, and the written file's normal indices must equal the old per-corner normals and whole-table anorm
search of tests/support/speed_reference.py on them, its grids and bytes the old per-frame grid code's. Frames
cross the normals' chunks. An identity test: it passes on the old code by design."""
from __future__ import annotations

from importlib import import_module

import numpy as np
import pytest

from formats.md2.codec import parse_md2, serialize_md2
from support import speed_reference as reference
from support.md2_synthetic import grid_model

EDITS = {"scaled": ((1.1, 1.1, 1.1), (0.0, 0.0, 0.0)), "turned and squashed": ((1.3, 0.7, 0.9), (0.4, -0.3, 1.1))}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_edited_md2_writes_the_old_normals_and_grids(bpy_scene, extension, tmp_path, monkeypatch, edit):
    bpy = bpy_scene
    build = import_module(f"{extension}.exporters.md2.build")
    shading_module = import_module(f"{extension}.exporters.sampling.shading")
    source = tmp_path / "grid.md2"
    source.write_bytes(serialize_md2(grid_model(nx=11, ny=7, frames=37, seed=3)))
    bpy.ops.import_scene.md2(filepath=str(source))
    obj = bpy.context.view_layer.objects.active
    obj.scale, obj.rotation_euler = EDITS[edit]
    seen = []
    original = build.normal_indices
    monkeypatch.setattr(build, "normal_indices", lambda p, s: seen.append((p.copy(), s)) or original(p, s))
    out = tmp_path / "edited.md2"
    assert bpy.ops.export_scene.md2(filepath=str(out), frame_source="TIMELINE") == {"FINISHED"}
    written = parse_md2(out.read_bytes())
    (positions, shading), = seen
    assert len(positions) == len(written.frame_names) == 37

    with monkeypatch.context() as old:        # the shading module's own steps, on the old algorithms
        old.setattr(shading_module, "grouped_normals", reference.grouped_normals)
        old.setattr(shading_module, "steady_normal_indices", reference.steady_normal_indices)
        expected = shading_module.normal_indices(positions, shading)
    np.testing.assert_array_equal(written.frame_normals, expected)
    grids = reference.md2_frame_grids(positions, "AUTO")
    np.testing.assert_array_equal(written.frame_verts, grids.verts)
    np.testing.assert_array_equal(written.frame_scale, grids.scale)
    np.testing.assert_array_equal(written.frame_translate, grids.translate)
