"""The command line with MD3, run as a user runs it: ``convert`` from MD2 and MDL to MD3 keeps every frame
(names and positions within half a 1/64 step of the source's decoded frames), ``check`` and ``info`` of
MD3 files (clean corpus files, the reader's error with field and offset, the renderer's limit warning)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import CORPUS, corpus_files, needs_bpy
from formats.md2.codec import parse_md2
from formats.md3.codec import read_md3
from formats.md3.vertices import decode_xyz
from formats.mdl.codec import parse_mdl

HALF_STEP = 1.0 / 128 + 1e-5
SOURCES = {"md2": "md2/irrlicht/gun.md2", "mdl": "mdl/librequake/armor.mdl"}


def corpus(relative: str):
    path = CORPUS / relative
    if not path.is_file():
        pytest.skip(f"corpus file {relative} not found under {CORPUS}")
    return path


def _within(points: np.ndarray, targets: np.ndarray) -> float:
    """The largest per-axis distance from a point to its nearest target."""
    worst = 0.0
    for start in range(0, len(points), 256):
        chunk = points[start:start + 256]
        index = np.argmin(((chunk[:, None] - targets[None]) ** 2).sum(-1), axis=1)
        worst = max(worst, float(np.abs(chunk - targets[index]).max()))
    return worst


@pytest.mark.parametrize("kind", sorted(SOURCES))
def test_convert_to_md3_keeps_every_frame(run, tmp_path, kind):
    needs_bpy()
    source = corpus(SOURCES[kind])
    result = run("convert", source, "--to", "md3", "-o", tmp_path / "out")
    assert result.returncode == 0, result.stdout + result.stderr
    model = read_md3((tmp_path / "out" / f"{source.stem}.md3").read_bytes())
    if kind == "md2":
        original = parse_md2(source.read_bytes())
        names, frames = original.frame_names, original.positions()
    else:
        original = parse_mdl(source.read_bytes())
        names, frames = original.pose_names, original.positions()
    assert model.frame_names == names and model.num_frames == len(frames)
    every = np.concatenate([decode_xyz(s.xyz) for s in model.surfaces], axis=1).astype(np.float64)
    for f in range(model.num_frames):
        assert _within(every[f], frames[f]) <= HALF_STEP, f"frame {f}"
        assert _within(frames[f], every[f]) <= HALF_STEP, f"frame {f}"


def test_check_md3_corpus_files_read_clean_or_with_the_renderer_warning(run):
    paths = corpus_files("md3/**/*.md3")
    if not paths:
        pytest.skip(f"corpus not found at {CORPUS}")
    result = run("check", "--json", *paths, block_bpy=True)
    report = json.loads(result.stdout)
    assert report["summary"]["files"] == len(paths) and report["summary"]["error"] == 0
    for entry in report["files"]:
        model = read_md3(open(entry["file"], "rb").read())
        assert [p["message"] for p in entry["problems"]] == model.warnings
    assert any("SHADER_MAX_VERTEXES" in p["message"] for e in report["files"] for p in e["problems"])


def test_check_names_the_field_and_offset_of_a_bad_md3(run, tmp_path):
    data = bytearray(corpus("md3/openarena081/models/weapons/vulcan/vulcan.md3").read_bytes())
    data[4:8] = (16).to_bytes(4, "little")                 # version 16
    bad = tmp_path / "bad.md3"
    bad.write_bytes(bytes(data))
    result = run("check", bad, block_bpy=True)
    assert result.returncode == 1
    assert f"{bad}: error: version @ offset 4: version is 16, expected 15" in result.stdout


def test_info_counts_an_md3(run):
    path = corpus("md3/openarena081/models/players/major/upper.md3")
    model = read_md3(path.read_bytes())
    info = json.loads(run("info", "--json", path, block_bpy=True).stdout)
    entry = info[0] if isinstance(info, list) else info.get("files", [info])[0]
    assert entry["format"] == "md3"
    assert entry["counts"]["frames"] == model.num_frames
    assert entry["counts"]["tags"] == model.num_tags == len(entry["details"]["tags"])
    assert entry["counts"]["vertices"] == sum(s.num_verts for s in model.surfaces)
