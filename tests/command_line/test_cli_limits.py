"""``convert`` and the engines' limits (issue 25): a long MS3D animation is refused before it is baked,
naming the model and the ``--fps`` that fits (which then converts); ``--fit-names`` shortens the frame
names of a Hexen II model for MD2, keeping its animations."""
from __future__ import annotations

import math
import re

import pytest
from support.environment import needs_bpy
from support.mdl_models import HEXEN_NAMES, hexen_names_mdl
from support.ms3d_models import synthetic_ms3d as _synthetic

from formats.animations import group_animations
from formats.md2.codec import parse_md2
from formats.ms3d.write import serialize_ms3d

SECONDS = 100.0


def long_ms3d() -> bytes:
    """The codec tests' two-joint quad, its animation stretched over 100 seconds at 24 fps."""
    model = _synthetic(blocks=0)
    model.total_frames = int(SECONDS * 24)
    for joint in model.joints:
        for keys in (joint.rot_keys, joint.pos_keys):
            if len(keys) and keys[:, 0].max() > 0:
                keys[:, 0] *= SECONDS / keys[:, 0].max()
    return serialize_ms3d(model)


def test_a_long_ms3d_animation_is_refused_before_baking_with_the_fps_that_fits(run, tmp_path):
    needs_bpy()
    (tmp_path / "walker.ms3d").write_bytes(long_ms3d())
    result = run("convert", tmp_path / "walker.ms3d", "--to", "md2", "-o", tmp_path / "out", "--no-skins")
    assert result.returncode == 1
    failure = next(line for line in result.stdout.splitlines() if "FAILED" in line)
    assert "model 'walker' (2 mesh objects): cannot export as MD2" in failure
    frames = int(re.search(r"(\d+) frames, \d+ over the limit of 512", failure)[1])
    assert frames == pytest.approx(SECONDS * 10, abs=2)            # baked at 10 fps by default
    fps = int(re.search(r"--fps (\d+)", failure)[1])
    assert fps == math.floor(512 / (frames / 10))
    result = run("convert", tmp_path / "walker.ms3d", "--to", "md2", "-o", tmp_path / "out", "--no-skins",
                 "--fps", fps)
    assert result.returncode == 0, result.stdout + result.stderr
    written = parse_md2((tmp_path / "out" / "walker.md2").read_bytes()).num_frames
    assert written <= 512 and written == pytest.approx(SECONDS * fps, abs=2)


def test_fit_names_converts_a_hexen2_model_to_md2(run, tmp_path):
    needs_bpy()
    (tmp_path / "paladin.mdl").write_bytes(hexen_names_mdl())
    result = run("convert", tmp_path / "paladin.mdl", "--to", "md2", "-o", tmp_path / "out", "--no-skins")
    assert result.returncode == 1
    assert result.stdout.count("frame names are longer than the limit of 15") == 2   # the line and the summary
    assert "--fit-names" in result.stdout and "more)" not in result.stdout
    result = run("convert", tmp_path / "paladin.mdl", "--to", "md2", "-o", tmp_path / "out", "--no-skins",
                 "--fit-names")
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"Fit Names: {len(HEXEN_NAMES)} frame name(s) shortened" in result.stdout
    names = parse_md2((tmp_path / "out" / "paladin.md2").read_bytes()).frame_names
    assert len(set(names)) == len(HEXEN_NAMES) and max(len(n) for n in names) <= 15
    assert [(a.first, a.last) for a in group_animations(names)] == \
        [(a.first, a.last) for a in group_animations(HEXEN_NAMES)]
