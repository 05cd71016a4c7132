"""The animation each frame name belongs to, written for the tests apart from ``formats.animations``
(issue 29): the name without its trailing digits, except where a run of such names numbers several
animations by its last two digits, as Quake II's ``m_player.h`` does (``pain101``..``pain104``,
``pain201``..: pain1, pain2)."""
from __future__ import annotations

import re


def reference_animations(names: list[str]) -> list[str]:
    stems = [re.sub(r"\d+$", "", n) or n for n in names]
    out = list(stems)
    i = 0
    while i < len(names):
        j = i
        while j < len(names) and stems[j] == stems[i]:
            j += 1
        digits = [names[k][len(stems[i]):] for k in range(i, j)]
        if all(len(d) >= 3 and d.isdigit() for d in digits):
            heads, counts = [d[:-2] for d in digits], [int(d[-2:]) for d in digits]
            changes = [k for k in range(len(digits)) if k == 0 or heads[k] != heads[k - 1]]
            counting = all(counts[k] == (1 if k in changes else counts[k - 1] + 1) for k in range(len(digits)))
            if counting and len(changes) >= 2 and len({heads[k] for k in changes}) == len(changes):
                out[i:j] = [stems[i] + h for h in heads]
        i = j
    return out
