"""``convert`` of a Quake III player's part (issue 44): a part converted to MD3 is that file, byte for
byte (the player is assembled only where the output holds it: ``--export-option player=true``, .glb,
.blend), and a player's .glb has one animation per ``animation.cfg`` animation, moving every part and
tag the animation plays, named after it. Real OpenArena players of the corpus."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
from support.environment import corpus_player as _player
from support.environment import needs_bpy
from support.glb import accessor_floats, glb_chunks

from formats.md3.codec import read_md3
from tools import validate_glb


def _cfg(folder) -> dict[str, tuple[int, int]]:
    """animation.cfg's animations as written: name -> (first frame, number of frames)."""
    out = {}
    for line in (folder / "animation.cfg").read_text(encoding="latin-1").splitlines():
        match = re.match(r"\s*(\d+)\s+(\d+)\s+\d+\s+\d+\s*//\s*(\w+)", line)
        if match:
            out[match.group(3)] = (int(match.group(1)), int(match.group(2)))
    return out


def test_a_player_part_converts_to_itself(run, tmp_path):
    """Each real player's lower.md3 (and major's upper.md3 and head.md3) converted to MD3 is the same file;
    before, lower.md3 came out holding the whole player (3 surfaces and 250 frames for major's 1 and 213).
    With ``--export-option player=true`` the output is the player: its folder, every file as it was."""
    needs_bpy()
    sources = [_player(name) / "lower.md3" for name in ("major", "merman", "penguin")]
    sources += [_player("major") / "upper.md3", _player("major") / "head.md3"]
    result = run("convert", *sources, "--to", "md3", "-o", tmp_path / "out", "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    outputs = {r["source"]: r["output"] for r in json.loads(result.stdout)["results"]}
    for source in sources:
        written = (tmp_path / "out" / outputs[str(source)]).read_bytes()
        model, original = read_md3(written), read_md3(source.read_bytes())
        assert (len(model.surfaces), model.num_frames) == (len(original.surfaces), original.num_frames), source
        assert written == source.read_bytes(), source
    folder = _player("penguin")           # asked for the player: the player folder, every file as it was
    result = run("convert", folder / "lower.md3", "--to", "md3", "--export-option", "player=true",
                 "-o", tmp_path / "player")
    assert result.returncode == 0, result.stdout + result.stderr
    for name in ("lower.md3", "upper.md3", "head.md3", "animation.cfg", "head_red.skin"):
        assert (tmp_path / "player" / name).read_bytes() == (folder / name).read_bytes(), name


def test_a_player_glb_has_one_animation_per_animation_cfg_line(run, tmp_path):
    """penguin: 25 animations named as animation.cfg names them (not one per object as before:
    ``lower_l_*_frames``, ``upper_tag_head`` ...); LEGS_RUN moves the legs' surfaces through lower.md3's
    frames of that animation (cfg frame minus the torso frames lower.md3 lacks), BOTH_DEATH1 both parts."""
    needs_bpy()
    folder = _player("penguin")
    result = run("convert", folder / "lower.md3", "--to", "glb", "-o", tmp_path / "out")
    assert result.returncode == 0, result.stdout + result.stderr
    gltf, blob = glb_chunks(tmp_path / "out" / "lower.glb")
    cfg = _cfg(folder)
    names = [a["name"] for a in gltf["animations"]]
    assert sorted(names) == sorted(cfg), names
    nodes = gltf["nodes"]
    lower = read_md3((folder / "lower.md3").read_bytes())
    skip = cfg["LEGS_WALKCR"][0] - cfg["TORSO_GESTURE"][0]
    legs = next(n for n in nodes if n.get("name") == lower.surfaces[0].name)
    mesh = gltf["meshes"][legs["mesh"]]
    assert len(mesh["primitives"][0]["targets"]) == lower.num_frames
    by_name = {a["name"]: a for a in gltf["animations"]}
    run_anim = by_name["LEGS_RUN"]
    channel = next(c for c in run_anim["channels"] if nodes[c["target"]["node"]] is legs)
    sampler = run_anim["samplers"][channel["sampler"]]
    times = accessor_floats(gltf, blob, sampler["input"]).ravel()
    weights = accessor_floats(gltf, blob, sampler["output"]).reshape(len(times), lower.num_frames)
    first, count = cfg["LEGS_RUN"]
    assert len(times) == count and times[0] == 0
    assert np.allclose(weights, np.eye(lower.num_frames)[first - skip:first - skip + count], atol=1e-4)
    moved = {nodes[c["target"]["node"]]["name"] for c in by_name["BOTH_DEATH1"]["channels"]}
    upper = read_md3((folder / "upper.md3").read_bytes())
    assert {lower.surfaces[0].name, upper.surfaces[0].name, "tag_torso", "tag_head"} <= moved, moved

    module = validate_glb.validator_module()
    if module is None:
        pytest.skip(f"Khronos glTF validator not installed in {validate_glb.default_dir()} (or node missing): "
                    "run python tools/validate_glb.py --install; the animation checks above passed")
    (report,) = validate_glb.validate([tmp_path / "out" / "lower.glb"], module)
    assert validate_glb.errors(report) == [], report
