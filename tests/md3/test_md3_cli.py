"""The command line with MD3, run as a user runs it: ``convert`` from MD2 and MDL to MD3 keeps every frame
(names and positions within half a 1/64 step of the source's decoded frames), from MD3 to MD2 and MDL keeps
every frame and names what it drops, and ``check --profile q3-player``."""
from __future__ import annotations

import json

import numpy as np
import pytest
from support.environment import CORPUS, corpus, needs_bpy

from formats.md2.codec import parse_md2
from formats.md3.codec import read_md3
from formats.md3.vertices import decode_xyz
from formats.mdl.codec import parse_mdl

HALF_STEP = 1.0 / 128 + 1e-5
SOURCES = {"md2": "md2/irrlicht/gun.md2", "mdl": "mdl/librequake/armor.mdl"}


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


def test_check_q3_player_profile_on_the_corpus_players(run, tmp_path):
    """merman and penguin conform; major's ``leth`` skin set has no icon, which the game needs, and names a
    shader without an image (``buh.tga``: the game draws those surfaces with its default shader); a copy of
    penguin without tag_head in upper.md3 and with LEGS_RUN past lower.md3's end is named for both."""
    players = CORPUS / "md3" / "openarena081" / "models" / "players"
    if not players.is_dir():
        pytest.skip(f"corpus not found at {CORPUS}")
    result = run("check", "--profile", "q3-player", players, block_bpy=True)
    lines = result.stdout.strip().splitlines()
    assert lines[-1] == "checked 3 Quake III player(s): 2 conform, 1 with deviations, 0 with errors"
    assert lines[:-1] == [f"{players / 'major'}: warning: skin set leth: no icon_leth.tga (or .jpg, .png): the "
                          "game refuses the player in it",
                          f"{players / 'major'}: warning: 1 shader the skins name is not found: "
                          "models/players/major/buh.tga (lower_leth.skin, upper_leth.skin); no shader script defines "
                          "it and no image lies where the game looks (the path with .tga, .jpg, .jpeg, .png, .pcx or "
                          ".bmp), so the game draws those surfaces with its default shader: put the image at that "
                          "path in the game folder or a pk3, or name an existing one in the skin"]
    assert result.returncode == 1
    broken = tmp_path / "penguin"
    import shutil
    shutil.copytree(players / "penguin", broken)
    upper = bytearray((broken / "upper.md3").read_bytes())
    model = read_md3(bytes(upper))
    at = upper.find(b"tag_head\0")                         # every frame's copy of the name
    while at >= 0:
        upper[at:at + 8] = b"tag_hexd"
        at = upper.find(b"tag_head\0", at + 1)
    (broken / "upper.md3").write_bytes(bytes(upper))
    cfg = (broken / "animation.cfg").read_text(encoding="latin-1").splitlines()
    run_line = next(i for i, line in enumerate(cfg) if "LEGS_RUN" in line)
    cfg[run_line] = "900\t10\t10\t15\t\t// LEGS_RUN"
    (broken / "animation.cfg").write_text("\n".join(cfg) + "\n", encoding="latin-1")
    result = run("check", "--profile", "q3-player", "--json", broken, block_bpy=True)
    report = json.loads(result.stdout)["players"][0]
    assert report["status"] == "warning" and model.num_tags == 2
    assert any(d.startswith("upper.md3 has no tag_head") for d in report["deviations"])
    assert any(d.startswith("LEGS_RUN: frames ") and "of lower.md3" in d for d in report["deviations"])


def test_check_q3_player_names_the_shaders_without_an_image_in_one_line(run, tmp_path):
    """merman with fins.tga and brac.tga gone (the default set's fins and bracers, named by each part's default
    and blue skins): one line counting the two shaders, each with the skins that name it (before: a line each)."""
    import shutil

    from support.environment import corpus_player
    folder = tmp_path / "models" / "players" / "merman"
    shutil.copytree(corpus_player("merman"), folder)
    for name in ("fins.tga", "brac.tga"):
        (folder / name).unlink()
    namers = {image: sorted(p.name for p in folder.glob("*.skin") if f"/{image}" in p.read_text(encoding="latin-1"))
              for image in ("fins.tga", "brac.tga")}
    assert namers["brac.tga"] == ["upper_default.skin"] and len(namers["fins.tga"]) == 3, namers
    result = run("check", "--profile", "q3-player", "--json", folder, block_bpy=True)
    deviations = json.loads(result.stdout)["players"][0]["deviations"]
    fins = ", ".join(namers["fins.tga"])
    assert deviations == [f"2 shaders the skins name are not found: models/players/merman/fins.tga ({fins}); "
                          "models/players/merman/brac.tga (upper_default.skin); no shader script defines them and no "
                          "image lies where the game looks (the path with .tga, .jpg, .jpeg, .png, .pcx or .bmp), so "
                          "the game draws those surfaces with its default shader: put the image at that path in the "
                          "game folder or a pk3, or name an existing one in the skin"], deviations


@pytest.mark.parametrize("target", ["md2", "mdl"])
def test_convert_md3_to_md2_or_mdl_keeps_frames_and_says_what_it_drops(run, tmp_path, target):
    """The Nexuiz reactor (two surfaces, a tag): one merged mesh with every vertex of both surfaces at
    every frame, and the tag and the merge named among the warnings."""
    needs_bpy()
    source = corpus("md3/nexuiz/models/turrets/reactor.md3")
    model = read_md3(source.read_bytes())
    extra = ["--export-option", "target=MODERN"] if target == "mdl" else []
    result = run("convert", source, "--to", target, "-o", tmp_path / "out", *extra)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"1 tag(s) not written ('tag_head'): {target.upper()} has no tags" in result.stdout
    assert f"the MD3's 2 surfaces are merged into one {target.upper()} mesh" in result.stdout
    data = (tmp_path / "out" / f"reactor.{target}").read_bytes()
    converted = parse_md2(data) if target == "md2" else parse_mdl(data)
    frames = converted.positions()
    assert len(frames) == model.num_frames
    every = np.concatenate([decode_xyz(s.xyz) for s in model.surfaces], axis=1).astype(np.float64)
    step = np.ptp(every[0], axis=0).max() / 255 / 2 + 1e-3           # the 8-bit grid of the classic formats
    assert _within(every[0], frames[0]) <= step and _within(frames[0], every[0]) <= step
