"""Frames grouped into animations by their names (issue 29): Quake II numbers a player's pain and
death animations by the last two digits (``FRAME_pain101`` .. ``FRAME_pain104`` is pain1, frame 01:
id-Software/Quake-2 ``game/m_player.h``), so a standard player has 20 animations, not 16; plain
numbered runs stay one animation. No Blender."""
from __future__ import annotations

import pytest
from support.animation_reference import reference_animations
from support.players import TABLE, m_player_names

from formats.animations import group_animations


def groups(names: list[str]) -> list[tuple[str, int, int]]:
    return [(a.name, a.first, a.last) for a in group_animations(names)]


def test_a_quake2_player_has_its_20_animations():
    names = m_player_names()
    assert names[54:66] == [f"pain{a}0{i}" for a in (1, 2, 3) for i in (1, 2, 3, 4)]      # m_player.h 54-65
    assert names[178:198] == [f"death1{i:02d}" for i in range(1, 7)] + [f"death2{i:02d}" for i in range(1, 7)] \
        + [f"death3{i:02d}" for i in range(1, 9)]                                       # m_player.h 178-197
    found = group_animations(names)
    assert [(a.name, a.frames) for a in found] == TABLE
    assert (found[3].first, found[5].last, found[17].first, found[19].last) == (54, 65, 178, 197)


@pytest.mark.parametrize("names,expected", [
    ([f"stand{i:02d}" for i in range(1, 41)], [("stand", 0, 39)]),
    ([f"run{i}" for i in range(1, 7)], [("run", 0, 5)]),
    ([f"frame{i}" for i in range(10, 30)], [("frame", 0, 19)]),
    ([f"frame{i}" for i in range(100, 130)], [("frame", 0, 29)]),             # one leading digit: one run
    ([f"walk{i:03d}" for i in range(1, 121)], [("walk", 0, 119)]),            # 001..099, 100..: not from 01
    ([f"death1{i:02d}" for i in range(1, 7)], [("death", 0, 5)]),             # a lone numbered run
    (["pain101", "pain102", "pain104", "pain201", "pain202"], [("pain", 0, 4)]),      # a gap
    (["pain101", "pain102", "pain201", "pain202", "pain101"], [("pain", 0, 4)]),      # pain1 again
    (["pain01", "pain02", "pain101", "pain102"], [("pain", 0, 3)]),           # not all three digits
    (["anim101", "anim102", "anim201", "anim202", "run1", "run2", "anim301"],
     [("anim1", 0, 1), ("anim2", 2, 3), ("run", 4, 5), ("anim", 6, 6)]),
    (["base", "base", "frame1"], [("base", 0, 1), ("frame", 2, 2)]),
])
def test_numbered_runs_split_only_where_the_names_number_animations(names, expected):
    assert groups(names) == expected
    starts = [(n, i) for i, n in enumerate(reference_animations(names)) if i == 0
              or n != reference_animations(names)[i - 1]]
    assert [(n, first) for n, first, _ in expected] == starts
