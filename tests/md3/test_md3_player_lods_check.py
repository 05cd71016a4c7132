"""``check --profile q3-player`` on a player's levels of detail as ioquake3 loads them (issue 44; the rules
in :func:`formats.md3.player.lod_problems`): merman (OpenArena 0.8.1, every part with ``_1`` and ``_2``)
with one file taken away or replaced, each case one line naming the files, counted."""
from __future__ import annotations

import json
import shutil

import pytest
from support.environment import corpus_player

from formats.md3.codec import read_md3


def _merman(tmp_path):
    folder = tmp_path / "models" / "players" / "merman"          # where the skins' game paths lead
    shutil.copytree(corpus_player("merman"), folder)
    return folder


def _deviations(run, folder) -> list[str]:
    result = run("check", "--profile", "q3-player", "--json", folder, block_bpy=True)
    (player,) = json.loads(result.stdout)["players"]
    assert player["errors"] == [], player
    return player["deviations"]


def test_merman_with_every_level_conforms(run, tmp_path):
    assert _deviations(run, _merman(tmp_path)) == []


def test_a_second_level_without_the_first_is_named(run, tmp_path):
    """upper_2.md3 without upper_1.md3: R_RegisterMD3 counts two levels and leaves level 1 empty."""
    folder = _merman(tmp_path)
    (folder / "upper_1.md3").unlink()
    deviations = _deviations(run, folder)
    assert deviations == [d for d in deviations if d.startswith(
        "1 level of detail without the one before (upper_2.md3 without upper_1.md3): ")], deviations
    assert len(deviations) == 1 and "crashes" in deviations[0] and "add the missing file" in deviations[0]


@pytest.mark.parametrize("removed", [("upper_1.md3", "upper_2.md3"), ("head_2.md3", "lower_2.md3")])
def test_a_part_without_the_levels_the_others_have_is_named(run, tmp_path, removed):
    """A player exported without its levels of detail for some parts while the others' old files stay (every
    level of upper, or level 2 of head and lower): one line, the missing files counted and named."""
    folder = _merman(tmp_path)
    for name in removed:
        (folder / name).unlink()
    deviations = _deviations(run, folder)
    files = sorted(removed, key=lambda n: (n.split("_")[1], ("lower", "upper", "head").index(n.split("_")[0])))
    assert deviations == [f"2 levels of detail missing that the other parts have ({', '.join(files)}): each part "
                          "picks among its own levels, so at a distance those parts are drawn finer than the others "
                          "(an export without Levels of Detail leaves the other parts' old files); write every "
                          "part's levels of detail, or delete them all"]


def test_a_level_with_fewer_frames_than_its_part_is_named(run, tmp_path):
    """major's upper.md3 (its torso surface named as merman's, fewer frames) as merman's upper_1.md3: the game
    checks the frame against upper.md3's count and reads the level's frame of that number."""
    folder = _merman(tmp_path)
    shutil.copyfile(corpus_player("major") / "upper.md3", folder / "upper_1.md3")
    lod, part = (read_md3((folder / n).read_bytes()) for n in ("upper_1.md3", "upper.md3"))
    assert lod.num_frames < part.num_frames
    assert {s.name.lower() for s in lod.surfaces} <= {s.name.lower() for s in part.surfaces}
    deviations = _deviations(run, folder)
    assert len(deviations) == 1, deviations
    assert deviations[0].startswith(f"1 level of detail with fewer frames than the part (upper_1.md3 has "
                                    f"{lod.num_frames} where upper.md3 has {part.num_frames}): ")
    assert "reading past the level's end" in deviations[0]
