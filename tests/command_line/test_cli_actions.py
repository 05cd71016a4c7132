"""``convert --frame-source actions``, run as a user runs it (subprocesses)."""
from __future__ import annotations

import numpy as np
from support.environment import corpus, needs_bpy
from support.md2_synthetic import grid_model

from formats.md2.codec import parse_md2, serialize_md2


def test_md2_converts_through_actions_keeping_every_frame(run, tmp_path):
    needs_bpy()
    source = tmp_path / "grid.md2"
    model = grid_model(frames=7)
    source.write_bytes(serialize_md2(model))
    result = run("convert", source, "--to", "md2", "-o", tmp_path / "out", "--frame-source", "actions", "--no-skins")
    assert result.returncode == 0, result.stdout + result.stderr
    out = parse_md2((tmp_path / "out" / "grid.md2").read_bytes())
    # imported as one action per animation, every frame comes back under its name, on its own grid
    assert out.frame_names == model.frame_names
    for field in ("frame_verts", "frame_scale", "frame_translate", "frame_normals", "tri_xyz"):
        assert np.array_equal(getattr(out, field), getattr(model, field)), field


def test_ms3d_to_md2_keeps_its_single_action(run, tmp_path):
    needs_bpy()
    source = corpus("ms3d/sge/zombie.ms3d")
    outputs = {}
    for frames in ("timeline", "actions"):
        result = run("convert", source, "--to", "md2", "-o", tmp_path / frames, "--frame-source", frames, "--no-skins")
        assert result.returncode == 0, result.stdout + result.stderr
        outputs[frames] = parse_md2((tmp_path / frames / "zombie.md2").read_bytes())
    timeline, actions = outputs["timeline"], outputs["actions"]
    # the one action (named after the file) covers the scene range the timeline bake uses
    assert actions.frame_names == [f"zombie{i:02d}" for i in range(1, timeline.num_frames + 1)]
    assert np.array_equal(actions.positions(), timeline.positions())
