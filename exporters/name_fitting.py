"""*Fit Names*: shorten frame and skin names that do not fit their field, instead of refusing the export.

Frame names: Quake groups a model's frames into animations by the name without its trailing digits
(``stand01`` .. ``stand12``: QuakeC ``$frame`` lists, Quake II's player animations, and
:func:`...formats.animations.group_animations` on import), so a too long name keeps its number and
only its stem is shortened, the same way for every frame of the group: frames of one animation stay
one animation, frames of different animations stay apart (a shortened stem that would meet another
animation's gets its last letter, or two, replaced), every name stays unique. ``size`` is the field:
the name gets at most ``size - 1`` bytes and the NUL.

Skin names are paths the game opens: the file name's stem is shortened, its folder and extension kept.
"""
from __future__ import annotations

import re
import string

from ..formats.message_text import quoted
from .export_error import ExportError

FIT_NAMES_HINT = "Fit Names (command line: --fit-names) shortens them"
_STEM_AND_NUMBER = re.compile(r"^(.*?)(\d*)$", re.S)
_SPARE = string.ascii_lowercase + string.ascii_uppercase


def _length(text: str) -> int:
    return len(text.encode("latin-1", "replace"))


def _cut(text: str, size: int) -> str:
    """``text`` cut to ``size`` Latin-1 bytes (one byte per character)."""
    return text[:max(0, size)]


def _spare_endings():
    """Letters that end a shortened stem meeting another: one letter, then two (never digits, which
    would join the frame number)."""
    yield from _SPARE
    yield from (a + b for a in _SPARE for b in _SPARE)


def fit_frame_names(names: list[str], size: int, fixed: list[bool] | None = None) -> tuple[list[str], dict[str, str]]:
    """``names`` with every one of ``size`` bytes or more shortened (see the module); ``fixed[i]``: name i
    is written back as the file stored it and is left alone. Returns the names and {old: new}."""
    room = size - 1
    fixed = fixed or [False] * len(names)
    parts = [_STEM_AND_NUMBER.match(n).groups() for n in names]
    digits: dict[str, int] = {}
    for (stem, number), name, keep in zip(parts, names, fixed):
        if not keep and _length(name) > room:
            digits[stem] = max(digits.get(stem, 0), len(number))
    taken = {stem for (stem, _), name, keep in zip(parts, names, fixed) if stem not in digits}
    new_stem: dict[str, str] = {}
    for stem in digits:                       # first-seen order: the same names always give the same result
        width = max(1, room - digits[stem])
        base = candidate = _cut(stem, width).rstrip(string.digits) or "f"
        spare = _spare_endings()
        while candidate in taken:
            ending = next(spare, None)
            if ending is None:
                raise ExportError(f"Fit Names: cannot shorten the frame names of {quoted(stem)} into {room} characters "
                                  "apart from the other animations; rename the animations")
            candidate = _cut(base, width - len(ending)).rstrip(string.digits) + ending
        taken.add(candidate)
        new_stem[stem] = candidate
    out, changes = [], {}
    for (stem, number), name, keep in zip(parts, names, fixed):
        if keep or stem not in new_stem:
            out.append(name)
            continue
        new = new_stem[stem] + number[-(room - len(new_stem[stem])):] if number else new_stem[stem]
        out.append(new)
        if new != name:
            changes[name] = new
    return out, changes


def fit_path_name(name: str, size: int) -> str:
    """A skin path shortened to ``size - 1`` bytes by its file stem (folder and extension kept); the name
    as it is when it fits or when its folder and extension alone leave no room."""
    room = size - 1
    if _length(name) <= room:
        return name
    folder, _, file_name = name.rpartition("/")
    stem, dot, extension = file_name.rpartition(".")
    if not dot:
        stem, extension = file_name, ""
    prefix = f"{folder}/" if folder else ""
    keep = room - _length(prefix) - len(dot) - _length(extension)
    if keep < 1:
        return name
    return f"{prefix}{_cut(stem, keep)}{dot}{extension}"


def fitted_report(what: str, changes: dict[str, str], size: int) -> str:
    """The report line for names Fit Names shortened."""
    shown = ", ".join(f"{quoted(old)} -> {quoted(new)}" for old, new in list(changes.items())[:3])
    more = f" and {len(changes) - 3} more" if len(changes) > 3 else ""
    return f"Fit Names: {len(changes)} {what}(s) shortened to {size - 1} characters: {shown}{more}"
