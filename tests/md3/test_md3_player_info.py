"""``info`` and ``check`` on a Quake III player's parts (issue 44): the animations ``animation.cfg`` gives
each part, in the part's own frame numbers, instead of one run of frame names (``frame_ 0-199``)."""
from __future__ import annotations

import json
import re

import pytest
from support.environment import corpus_player as _player


def _cfg(folder) -> list[tuple[str, int, int, int]]:
    """animation.cfg's lines as written: (name, first frame, number of frames, rate)."""
    out = []
    for line in (folder / "animation.cfg").read_text(encoding="latin-1").splitlines():
        match = re.match(r"\s*(\d+)\s+(\d+)\s+\d+\s+(\d+)\s*//\s*(\w+)", line)
        if match:
            out.append((match.group(4), int(match.group(1)), int(match.group(2)), int(match.group(3))))
    return out


@pytest.mark.parametrize("part", ["lower", "upper"])
def test_info_lists_a_player_parts_animation_cfg_animations(run, part):
    """penguin: lower lists BOTH_* and LEGS_* (the legs at their number minus the torso frames lower.md3
    lacks), upper BOTH_* and TORSO_*, each with its frames in the part; ``--frames`` names each frame's
    animation."""
    folder = _player("penguin")
    cfg = _cfg(folder)
    first = {name: start for name, start, _, _ in cfg}
    skip = first["LEGS_WALKCR"] - first["TORSO_GESTURE"] if part == "lower" else 0
    kinds = ("BOTH_", "LEGS_") if part == "lower" else ("BOTH_", "TORSO_")
    expected = [(name, start - (skip if name.startswith("LEGS_") else 0), count) for name, start, count, _ in cfg
                if name.startswith(kinds)]
    result = run("info", "--json", folder / f"{part}.md3", block_bpy=True)
    assert result.returncode == 0, result.stdout + result.stderr
    (info,) = json.loads(result.stdout)["files"]
    assert [(a["name"], a["first"], a["frames"]) for a in info["animations"]] == expected
    assert info["details"]["animation_cfg"]["BOTH_DEATH1"]["fps"] == 25
    result = run("info", "--frames", folder / f"{part}.md3", block_bpy=True)
    name, start, count = expected[-1]
    assert re.search(rf"^\s+{start}\s+\S+\s+{name}$", result.stdout, re.MULTILINE), result.stdout[-800:]
    assert "animation.cfg" in result.stdout and "frame_  frames" not in result.stdout


def test_check_names_levels_of_detail_that_do_not_match_their_part(run, tmp_path):
    """merman (its three parts with both levels of detail) conforms; with upper_1.md3 replaced by penguin's
    lower.md3 (another model's frames and surfaces, as a stale LOD left beside a part) both mismatches are
    named."""
    import shutil

    from formats.md3.codec import read_md3
    folder = tmp_path / "models" / "players" / "merman"          # where the skins' game paths lead
    shutil.copytree(_player("merman"), folder)
    result = run("check", "--profile", "q3-player", "--json", folder, block_bpy=True)
    assert json.loads(result.stdout)["players"][0]["deviations"] == []
    shutil.copyfile(_player("penguin") / "lower.md3", folder / "upper_1.md3")
    lower_1, upper = (read_md3((folder / n).read_bytes()) for n in ("upper_1.md3", "upper.md3"))
    assert lower_1.num_frames != upper.num_frames
    result = run("check", "--profile", "q3-player", "--json", folder, block_bpy=True)
    deviations = json.loads(result.stdout)["players"][0]["deviations"]
    assert lower_1.num_frames > upper.num_frames
    assert any(d.startswith(f"1 level of detail with more frames than the part (upper_1.md3 has {lower_1.num_frames} "
                            f"where upper.md3 has {upper.num_frames}): ") for d in deviations), deviations
    assert any(d.startswith("1 level of detail with surfaces the part has not (upper_1.md3: l_legs): ")
               for d in deviations), deviations


def test_info_on_a_player_part_in_a_pk3_reads_its_animation_cfg(run, tmp_path):
    """The same for lower.md3 inside a pk3: animation.cfg comes out of the archive with it."""
    import zipfile
    folder = _player("penguin")
    pk3 = tmp_path / "players.pk3"
    with zipfile.ZipFile(pk3, "w") as archive:
        for path in sorted(folder.iterdir()):
            archive.writestr(f"models/players/penguin/{path.name}", path.read_bytes())
    result = run("info", "--json", f"{pk3}:models/players/penguin/lower.md3", block_bpy=True)
    assert result.returncode == 0, result.stdout + result.stderr
    (info,) = json.loads(result.stdout)["files"]
    names = [name for name, _, _, _ in _cfg(folder) if name.startswith(("BOTH_", "LEGS_"))]
    assert [a["name"] for a in info["animations"]] == names
