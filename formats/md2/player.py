"""The Quake II player model conventions (bpy-free), checked by ``check --profile q2-player`` and by
the MD2 export's *Quake II Player* option.

A player folder (``baseq2/players/<name>/``) holds the body ``tris.md2`` and weapon models
(``weapon.md2``, ``w_*.md2``). The game plays the body's frames by index (``m_player.h``): 198
frames in this order, and draws a weapon model at the body's frame number, so a weapon moves with
the body only where it has that frame. Where it has none, the renderer prints ``R_DrawAliasModel
<model>: no such frame <n>`` and draws the weapon's frame 0 (id-Software/Quake-2 ``ref_gl/gl_mesh.c``
and ``ref_soft/r_alias.c``, ``R_DrawAliasModel``); a weapon's frames past the body's are never shown.
Real players often ship so (a 229-frame body beside a 208-frame ``weapon.md2``), so the check says
which body frames a weapon lacks.
Frame names are ``<animation><number>`` (``stand01``, ``run1``, ``pain101``), any case (the game
plays frames by index and never reads their names); MD2 stores at most 15 characters of a frame
name and 63 of a skin name.

The player menu lists a skin ``<skin>.pcx`` of a player folder only when its icon ``<skin>_i.pcx``
lies beside it, names compared exactly (id-Software/Quake-2 ``client/menu.c``:
``PlayerConfig_ScanDirectories`` counts the folder's ``*.pcx`` files for which ``IconOfSkinExists``
finds ``<skin>_i.pcx`` with ``strcmp``); its icons are 32x32 pictures.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..message_text import quoted
from ..report_lines import Message
from .codec import LIMITS

STANDARD_ANIMATIONS: tuple[tuple[str, int], ...] = (
    ("stand", 40), ("run", 6), ("attack", 8), ("pain1", 4), ("pain2", 4), ("pain3", 4), ("jump", 6),
    ("flip", 12), ("salute", 11), ("taunt", 17), ("wave", 11), ("point", 12), ("crstnd", 19), ("crwalk", 6),
    ("crattak", 9), ("crpain", 4), ("crdeath", 5), ("death1", 6), ("death2", 6), ("death3", 8))
STANDARD_FRAMES = sum(n for _, n in STANDARD_ANIMATIONS)   # 198
ICON_SUFFIX = "_i"
ICON_SIZE = 32
BODY_FILE = "tris.md2"
WEAPON_FILE = "weapon.md2"
_NUMBERED = re.compile(r"^(.*?)(\d+)$")


@dataclass
class PlayerPart:
    """What the check needs of one model file: its name, frame names, skins, skins not found."""
    file: str
    frame_names: list[str]
    skins: list[str] = field(default_factory=list)
    missing_skins: list[str] = field(default_factory=list)


def is_weapon_name(name: str) -> bool:
    """``weapon``, ``weapon.md2``, ``w_railgun``...: a weapon model rather than the body."""
    lower = name.lower()
    return lower.startswith("weapon") or lower.startswith("w_")


def standard_animation(frame_name: str) -> str | None:
    """The standard animation a frame name belongs to, any case (``pain101``, ``Pain101`` -> ``pain1``),
    else None."""
    best = None
    lower = frame_name.lower()
    for name, _ in STANDARD_ANIMATIONS:
        rest = lower[len(name):]
        if lower.startswith(name) and rest.isdigit() and (best is None or len(name) > len(best)):
            best = name
    return best


_RANK = {name: i for i, (name, _) in enumerate(STANDARD_ANIMATIONS)}


def standard_rank(name: str) -> int | None:
    """The place of the standard animation called ``name`` (any case: ``Stand`` -> 0), else None."""
    return _RANK.get(name.lower())


def in_standard_order(names: list[str]) -> list[str]:
    """``names`` with the standard animations' names first in the game's order, the others after
    them in their given order."""
    return sorted(names, key=lambda n: (0, standard_rank(n)) if standard_rank(n) is not None else (1, 0))


def icon_name(skin_file: str) -> str:
    """The icon file the menu looks for beside the skin file ``skin_file`` (``grunt.pcx`` -> ``grunt_i.pcx``)."""
    stem = skin_file.rpartition(".")[0] if "." in skin_file else skin_file
    return f"{stem}{ICON_SUFFIX}.pcx"


def is_icon_name(file_name: str) -> bool:
    lower = file_name.lower()
    return lower.endswith(f"{ICON_SUFFIX}.pcx")


def _ranges(frame_names: list[str]) -> dict[str | None, list[int]]:
    found: dict[str | None, list[int]] = {}
    for i, name in enumerate(frame_names):
        found.setdefault(standard_animation(name), []).append(i)
    return found


def wrong_length_kind(file: str) -> str:
    """The kind (:class:`..report_lines.Message`) of the lines saying an animation has the wrong length."""
    return f"{file}: {{n}} animation{{s}} of the wrong length"


def body_deviations(body: PlayerPart) -> list[str]:
    """One line per way the body's frames differ from the standard 198; lines that merely follow from
    an earlier one are left out (an animation moved by the wrong length of one before it, the total
    count when the listed animations account for it). Missing and wrong-length animations are
    :class:`..report_lines.Message` items of one kind each."""
    lines: list[str] = []
    count = len(body.frame_names)
    found = _ranges(body.frame_names)
    other = found.get(None, [])
    start = shift = 0        # shift: frames the animations so far have more (or fewer) than the standard
    for name, length in STANDARD_ANIMATIONS:
        frames = found.get(name, [])
        expected = f"frames {start}-{start + length - 1}"
        if not frames:
            lines.append(Message(f"{body.file}: animation {quoted(name)} is missing (expected {length} frames at "
                                 f"{expected})", f"{body.file}: {{n}} animation{{s}} missing", name))
            shift -= length
        elif len(frames) != length:
            lines.append(Message(f"{body.file}: animation {quoted(name)} has {len(frames)} frames, expected {length}",
                                 wrong_length_kind(body.file), name))
            shift += len(frames) - length
        elif frames != list(range(start, start + length)):
            moved = start + shift + sum(1 for i in other if i < frames[0])    # where the earlier lines put it
            if frames != list(range(moved, moved + length)):
                lines.append(f"{body.file}: animation {quoted(name)} is at frames {frames[0]}-{frames[-1]}, "
                             f"expected {expected}")
        start += length
    if count != STANDARD_FRAMES and count - STANDARD_FRAMES != shift + len(other):
        lines.insert(0, f"{body.file}: {count} frames, a Quake II player has {STANDARD_FRAMES}")
    if other:
        shown = ", ".join(quoted(body.frame_names[i]) for i in other[:3]) + (", ..." if len(other) > 3 else "")
        lines.append(f"{body.file}: {len(other)} frames belong to no standard animation ({shown})")
    return lines


def part_deviations(part: PlayerPart) -> list[str]:
    """Skins present and found, names within MD2's limits."""
    lines = []
    if not part.skins:
        lines.append(f"{part.file}: no skins")
    for skin in part.missing_skins:
        lines.append(f"{part.file}: skin {quoted(skin)} not found")
    long_frames = [n for n in part.frame_names if len(n.encode("latin-1", "replace")) > LIMITS.frame_name]
    if long_frames:
        lines.append(f"{part.file}: {len(long_frames)} frame names over {LIMITS.frame_name} characters "
                     f"(first {quoted(long_frames[0])})")
    for skin in part.skins:
        if len(skin.encode("latin-1", "replace")) > LIMITS.skin_name:
            lines.append(f"{part.file}: skin name {quoted(skin)} is over {LIMITS.skin_name} characters")
    return lines


def _stem(name: str) -> str:
    last = name.replace("\\", "/").rpartition("/")[2]
    return (last.rpartition(".")[0] if "." in last else last).lower()


def player_skin_files(body: PlayerPart, weapons: list[PlayerPart], files: list[str]) -> list[str]:
    """The player skins among ``files`` (the file names in the player's folder): every ``.pcx``
    that is not an icon nor a skin only a weapon model names (``weapon.pcx``)."""
    weapon_skins = {_stem(s) for w in weapons for s in w.skins} - {_stem(s) for s in body.skins}
    return [f for f in files if f.lower().endswith(".pcx") and not is_icon_name(f) and _stem(f) not in weapon_skins]


def icon_deviations(body: PlayerPart, weapons: list[PlayerPart], files: list[str]) -> list[str]:
    """One line per player skin the game's menu would not list for want of its icon."""
    skins = player_skin_files(body, weapons, files)
    if not skins:
        return ["no player skin (.pcx) in the folder: Quake II's player menu lists a player only with a skin "
                "and its icon <skin>_i.pcx"]
    present = set(files)
    lines = []
    for skin in skins:
        icon = icon_name(skin)
        if icon in present:
            continue
        other = [f for f in files if f.lower() == icon.lower()]
        if other:
            lines.append(f"skin {quoted(skin)}: its icon is named {quoted(other[0])}, but the menu compares names exactly: "
                         f"rename it {quoted(icon)}")
        else:
            lines.append(f"skin {quoted(skin)} has no icon {quoted(icon)}: Quake II's player menu does not list this skin")
    return lines


def frame_count_deviation(body: PlayerPart, weapon: PlayerPart) -> str | None:
    """The line for a weapon whose frame count is not the body's: which body frames it lacks (the game
    draws its frame 0 there) or which of its frames are never shown; None when the counts agree."""
    have, need = len(weapon.frame_names), len(body.frame_names)
    head = f"{weapon.file}: {have} frames, {body.file} has {need}"
    if have < need:
        first, last = body.frame_names[have], body.frame_names[-1]
        return (f"{head}; it lacks body frames {have}-{need - 1} ({quoted(first)} to {quoted(last)}), where Quake II draws "
                "its frame 0 and prints 'no such frame' (R_DrawAliasModel)")
    if have > need:
        return (f"{head}; its frames {need}-{have - 1} are never shown (Quake II draws a weapon at the body's "
                "frame)")
    return None


def player_deviations(body: PlayerPart | None, weapons: list[PlayerPart],
                      files: list[str] | None = None) -> list[str]:
    """Every deviation of a player (body and weapon models) from the Quake II conventions; with
    ``files`` (the names of the files in its folder) also each player skin without its icon."""
    if body is None:
        return [f"no {BODY_FILE}"]
    lines = body_deviations(body) + part_deviations(body)
    if not weapons:
        lines.append(f"no weapon model ({WEAPON_FILE} or w_*.md2)")
    for weapon in weapons:
        line = frame_count_deviation(body, weapon)
        lines += [line] if line else []
        lines += part_deviations(weapon)
    if files is not None:
        lines += icon_deviations(body, weapons, files)
    return lines
