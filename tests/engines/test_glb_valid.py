"""``convert --to glb`` writes valid glTF also for a model with no drawable triangles (issue 19): no
animation channel targets morph weights on a node whose mesh has no morph targets (or that has no
mesh). Checked on the GLB's JSON directly, and with the Khronos glTF validator when node and the
npm package are installed (``python tools/validate_glb.py --install``)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from support.environment import CHECKOUT, skip_inside_blender
from support.glb import accessor_floats, glb_chunks, glb_json
from support.md2_synthetic import grid_model
from support.models import degenerate_model

from formats.md2.codec import serialize_md2
from tools import validate_glb


def weight_channels_without_targets(gltf: dict) -> list[str]:
    """Pointers of animation channels that target ``weights`` on a node without morph targets."""
    nodes, meshes = gltf.get("nodes", []), gltf.get("meshes", [])
    bad = []
    for a, animation in enumerate(gltf.get("animations", [])):
        for c, channel in enumerate(animation["channels"]):
            target = channel["target"]
            if target["path"] != "weights":
                continue
            node = nodes[target["node"]] if "node" in target else {}
            mesh = meshes[node["mesh"]] if "mesh" in node else {"primitives": []}
            if not mesh["primitives"] or not all(p.get("targets") for p in mesh["primitives"]):
                bad.append(f"/animations/{a}/channels/{c}")
    return bad


def test_the_check_finds_a_weights_channel_on_a_node_without_a_mesh():
    gltf = {"nodes": [{"name": "flat"}, {"name": "grid", "mesh": 0}],
            "meshes": [{"primitives": [{"attributes": {}, "targets": [{}]}]}],
            "animations": [{"channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}},
                                         {"sampler": 1, "target": {"node": 1, "path": "weights"}}]}]}
    assert weight_channels_without_targets(gltf) == ["/animations/0/channels/0"]


@pytest.fixture
def convert(tmp_path_factory, tmp_path):
    pytest.importorskip("bpy", reason="convert runs the operators in the bpy wheel")
    folder = tmp_path_factory.mktemp("pkgpath")
    (folder / "classic_models").symlink_to(CHECKOUT, target_is_directory=True)

    def run(*args: object) -> subprocess.CompletedProcess:
        skip_inside_blender("python -m classic_models convert")
        return subprocess.run([sys.executable, "-m", "classic_models", "convert", *map(str, args)],
                              capture_output=True, text=True, cwd=tmp_path,
                              env=dict(os.environ, PYTHONPATH=str(folder)), timeout=600)
    return run


def test_empty_models_convert_to_valid_glb(convert, tmp_path):
    sources = []
    for fmt in ("md2", "mdl", "ms3d"):
        (tmp_path / f"flat_{fmt}.{fmt}").write_bytes(degenerate_model(fmt))
        sources.append(f"flat_{fmt}.{fmt}")
    (tmp_path / "grid.md2").write_bytes(serialize_md2(grid_model()))
    result = convert(*sources, "grid.md2", "--to", "glb", "-o", "out", "-j", "1", "--json")
    assert result.returncode == 0, result.stderr
    report = {Path(r["source"]).name: r for r in json.loads(result.stdout)["results"]}
    for name in ("flat_md2.md2", "flat_mdl.mdl"):        # frame models: their frames cannot be morph targets
        assert any(w.startswith(f"the frames of flat_{name[5:8]} are left out of flat_{name[5:8]}.glb: glTF animates "
                                "frames as morph targets") for w in report[name]["warnings"]), report[name]
    assert not any("left out" in w for w in report["grid.md2"]["warnings"])
    outputs = sorted((tmp_path / "out").glob("*.glb"))
    assert [p.name for p in outputs] == ["flat_md2.glb", "flat_mdl.glb", "flat_ms3d.glb", "grid.glb"]
    for path in outputs:
        assert weight_channels_without_targets(glb_json(path)) == [], path.name
    grid = glb_json(tmp_path / "out" / "grid.glb")        # the normal model keeps its morph animation
    assert any(c["target"]["path"] == "weights" for a in grid["animations"] for c in a["channels"])

    module = validate_glb.validator_module()
    if module is None:
        pytest.skip(f"Khronos glTF validator not installed in {validate_glb.default_dir()} (or node missing): "
                    "run python tools/validate_glb.py --install; the JSON checks above passed")
    for report in validate_glb.validate(outputs, module):
        assert validate_glb.errors(report) == [], report["file"]


def test_glb_has_one_animation_per_animation_of_the_model(convert, tmp_path):
    """Frames stand01-04, pain1, run1-3: three glTF animations named stand, pain and run, each from
    0 s at the 10 frames a second of the import, its sample k showing morph target first+k alone
    (the targets are the frames in file order)."""
    names = ["stand01", "stand02", "stand03", "stand04", "pain1", "run1", "run2", "run3"]
    (tmp_path / "anims.md2").write_bytes(serialize_md2(replace(grid_model(frames=len(names)), frame_names=names)))
    result = convert("anims.md2", "--to", "glb", "-o", "out", "-j", "1")
    assert result.returncode == 0, result.stderr
    gltf, blob = glb_chunks(tmp_path / "out" / "anims.glb")
    animations = gltf["animations"]
    assert [a["name"] for a in animations] == ["stand", "pain", "run"]
    mesh = next(m for m in gltf["meshes"] if m["primitives"][0].get("targets"))
    assert len(mesh["primitives"][0]["targets"]) == len(names)
    for animation, (first, count) in zip(animations, ((0, 4), (4, 1), (5, 3))):
        (channel,) = animation["channels"]
        assert channel["target"]["path"] == "weights"
        sampler = animation["samplers"][channel["sampler"]]
        times = accessor_floats(gltf, blob, sampler["input"]).ravel()
        weights = accessor_floats(gltf, blob, sampler["output"]).reshape(len(times), len(names))
        assert np.allclose(times, np.arange(count) * 0.1, atol=1e-4), animation["name"]
        assert np.allclose(weights, np.eye(len(names))[first:first + count], atol=1e-4), animation["name"]

    module = validate_glb.validator_module()
    if module is None:
        pytest.skip(f"Khronos glTF validator not installed in {validate_glb.default_dir()} (or node missing): "
                    "run python tools/validate_glb.py --install; the animation checks above passed")
    (report,) = validate_glb.validate([tmp_path / "out" / "anims.glb"], module)
    assert validate_glb.errors(report) == [], report
