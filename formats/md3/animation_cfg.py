"""Quake III player ``animation.cfg``: the frame ranges of the player's animations, read as the game
reads them (ioquake3 cgame/cg_players.c ``CG_ParseAnimationFile``, tokens by ``COM_Parse``:
:mod:`.q3_text`).

1. Options, until a token that starts with a digit: ``footsteps <default|normal|boot|flesh|mech|energy>``,
   ``headoffset x y z``, ``sex <m|f|n>`` (only the first letter counts), ``fixedlegs``, ``fixedtorso``
   (names compared without case); anything else is reported ("unknown token") and skipped.
2. ``MAX_ANIMATIONS`` (31) animations in the order of bg_public.h ``animNumber_t``
   (:data:`ANIMATION_NAMES`), four numbers each: first frame, number of frames (negative: played
   backwards), looping frames, frames per second (``atoi``/``atof``; the game plays 0 fps as 1). The first 25
   are required; the last six (Team Arena's ``TORSO_GETFLAG`` .. ``TORSO_NEGATIVE``) may be missing and
   then copy ``TORSO_GESTURE``. A file that ends inside an animation, or before the 25th, is refused
   by the game ("Error parsing animation file"), and so here.
3. Frame numbers count one sequence: ``BOTH_*`` frames are in lower.md3 and upper.md3, ``TORSO_*`` in
   upper.md3 after them, ``LEGS_*`` after those. In lower.md3 a legs animation starts at its number minus
   ``skip = first(LEGS_WALKCR) - first(TORSO_GESTURE)`` (the torso frames lower.md3 does not have):
   :meth:`AnimationCfg.model_first_frame`.

The game refuses a file of 19,999 bytes or more (its buffer is 20,000). :func:`write_animation_cfg`
gives back the bytes read while what they say is unchanged, else writes a file in the usual layout.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import cast

from ..errors import FormatError
from .q3_text import Q3Text, com_parse

ANIMATION_NAMES = (
    "BOTH_DEATH1", "BOTH_DEAD1", "BOTH_DEATH2", "BOTH_DEAD2", "BOTH_DEATH3", "BOTH_DEAD3",
    "TORSO_GESTURE", "TORSO_ATTACK", "TORSO_ATTACK2", "TORSO_DROP", "TORSO_RAISE", "TORSO_STAND", "TORSO_STAND2",
    "LEGS_WALKCR", "LEGS_WALK", "LEGS_RUN", "LEGS_BACK", "LEGS_SWIM", "LEGS_JUMP", "LEGS_LAND", "LEGS_JUMPB",
    "LEGS_LANDB", "LEGS_IDLE", "LEGS_IDLECR", "LEGS_TURN",
    "TORSO_GETFLAG", "TORSO_GUARDBASE", "TORSO_PATROL", "TORSO_FOLLOWME", "TORSO_AFFIRMATIVE", "TORSO_NEGATIVE",
)
MAX_ANIMATIONS = len(ANIMATION_NAMES)            # 31
REQUIRED_ANIMATIONS = ANIMATION_NAMES.index("TORSO_GETFLAG")   # 25
TORSO_GESTURE = ANIMATION_NAMES.index("TORSO_GESTURE")
LEGS_WALKCR = ANIMATION_NAMES.index("LEGS_WALKCR")
MAX_FILE_SIZE = 20000 - 2                        # len >= sizeof(text) - 1 is refused
FOOTSTEPS = ("default", "normal", "boot", "flesh", "mech", "energy")


@dataclass
class Md3Animation:
    """One line: the numbers as the file gives them (``num`` negative: played backwards)."""
    name: str
    first: int
    num: int
    looping: int
    fps: float                    # as written; the game plays 0 as 1 (:attr:`game_fps`)

    @property
    def game_fps(self) -> float:
        return self.fps if self.fps != 0 else 1.0

    @property
    def part(self) -> str:
        """``both``, ``torso`` or ``legs``: which models the frames are in."""
        return self.name.split("_", 1)[0].lower()


@dataclass
class AnimationCfg:
    animations: list[Md3Animation]                  # 25 to 31, in the file's (the game's) order
    sex: str | None = None                          # the token as written (the game reads its first letter)
    footsteps: str | None = None
    headoffset: tuple[float, float, float] | None = None
    fixedlegs: bool = False
    fixedtorso: bool = False
    raw: bytes | None = None
    warnings: list[str] = field(default_factory=list, compare=False)

    @property
    def gender(self) -> str:
        """``male``, ``female`` or ``neuter`` as the game reads ``sex`` (its first letter; male otherwise)."""
        first = (self.sex or "m")[:1].lower()
        return {"f": "female", "n": "neuter"}.get(first, "male")

    @property
    def legs_skip(self) -> int:
        """Frames lower.md3 lacks before its legs frames: first(LEGS_WALKCR) - first(TORSO_GESTURE)."""
        return self.animations[LEGS_WALKCR].first - self.animations[TORSO_GESTURE].first

    def model_first_frame(self, index: int) -> int:
        """Where animation ``index`` starts in its own model (the legs ones in lower.md3 after the skip)."""
        first = self.animations[index].first
        return first - self.legs_skip if LEGS_WALKCR <= index < REQUIRED_ANIMATIONS else first

    def game_animations(self) -> list[Md3Animation]:
        """All 31 as the game holds them: the missing Team Arena ones copied from TORSO_GESTURE."""
        out = list(self.animations)
        gesture = self.animations[TORSO_GESTURE]
        for name in ANIMATION_NAMES[len(out):]:
            out.append(Md3Animation(name, gesture.first, gesture.num, gesture.looping, gesture.fps))
        return out


def _atoi(token: bytes) -> int:
    match = re.match(rb"\s*([+-]?\d+)", token)
    return int(match.group(1)) if match else 0


def _atof(token: bytes) -> float:
    match = re.match(rb"\s*([+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?))", token)
    return float(match.group(1)) if match else 0.0


def _shown(token: bytes) -> str:
    return token.decode("latin-1")


def parse_animation_cfg(data: bytes) -> AnimationCfg:
    """An ``animation.cfg`` as the game reads it; :class:`FormatError` where the game refuses it."""
    data = bytes(data)
    if len(data) > MAX_FILE_SIZE:
        raise FormatError(f"the file has {len(data)} bytes; the game reads at most {MAX_FILE_SIZE}",
                          field="animation.cfg", offset=0)
    text = Q3Text(data)
    cfg = AnimationCfg(animations=[], raw=data)
    unknown: list[str] = []
    while True:
        prev = text.pos
        token, _ = com_parse(text)
        if not token:
            break
        word = token.lower()
        if word in (b"footsteps", b"sex"):
            value, _ = com_parse(text)
            if not value:
                break
            setattr(cfg, word.decode(), _shown(value))
            if word == b"footsteps" and value.lower().decode("latin-1") not in FOOTSTEPS:
                cfg.warnings.append(f"footsteps '{_shown(value)}' is not one the game knows (it keeps 'normal')")
            continue
        if word == b"headoffset":
            values: list[float] = []
            for _ in range(3):
                value, _ = com_parse(text)
                if not value:
                    break
                values.append(_atof(value))
            cfg.headoffset = cast(tuple[float, float, float], tuple(values + [0.0] * (3 - len(values))))
            continue
        if word in (b"fixedlegs", b"fixedtorso"):
            setattr(cfg, word.decode(), True)
            continue
        if 0x30 <= token[0] <= 0x39:
            text.pos = prev
            break
        unknown.append(_shown(token))
    if unknown:
        cfg.warnings.append(f"{len(unknown)} unknown token{'s' if len(unknown) > 1 else ''} the game skips "
                            f"(first: '{unknown[0]}')")
    for index, name in enumerate(ANIMATION_NAMES):
        numbers, offset = [], None
        for _ in range(4):
            token, at = com_parse(text)
            offset = at if offset is None else offset
            if not token:
                break
            numbers.append(token)
        if not numbers and index >= REQUIRED_ANIMATIONS:
            break
        if len(numbers) < 4:
            raise FormatError(f"the file ends inside the {index + 1}th animation ({name}): the game refuses it "
                              f"(it needs four numbers for each of the first {REQUIRED_ANIMATIONS})",
                              field=name, offset=offset)
        fps = _atof(numbers[3])
        cfg.animations.append(Md3Animation(name, _atoi(numbers[0]), _atoi(numbers[1]), _atoi(numbers[2]), fps))
    return cfg


def _content(cfg: AnimationCfg) -> tuple:
    return (cfg.sex, cfg.footsteps, cfg.headoffset, cfg.fixedlegs, cfg.fixedtorso,
            [(a.name, a.first, a.num, a.looping, a.fps) for a in cfg.animations])


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def write_animation_cfg(cfg: AnimationCfg) -> bytes:
    """The file's bytes: as read while what they say is unchanged, else a new file in the usual layout."""
    if cfg.raw is not None:
        try:
            if _content(parse_animation_cfg(cfg.raw)) == _content(cfg):
                return cfg.raw
        except FormatError:
            pass
    lines = ["// animation config file", ""]
    if cfg.sex is not None:
        lines.append(f"sex {cfg.sex}")
    if cfg.footsteps is not None:
        lines.append(f"footsteps {cfg.footsteps}")
    if cfg.headoffset is not None:
        lines.append("headoffset " + " ".join(_number(v) for v in cfg.headoffset))
    lines += ["fixedlegs"] * cfg.fixedlegs + ["fixedtorso"] * cfg.fixedtorso
    lines += ["", "// first frame, num frames, looping frames, frames per second", ""]
    for a in cfg.animations:
        lines.append(f"{a.first}\t{a.num}\t{a.looping}\t{_number(a.fps)}\t\t// {a.name}")
    return ("\n".join(lines) + "\n").encode("latin-1", "replace")
