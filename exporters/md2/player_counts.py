"""Why a Quake II player's animation has the wrong number of frames, and what would fix it.

The game plays the body's frames by index (``m_player.h``: stand 40, run 6, ...), so an action
sampled to another count shifts every animation after it. With *Frames: Actions* each standard
animation comes from the action of its name (any case); its count follows from the action's frame
range and the sampling rate (:func:`..sampling.frame_rate.frames_between`: ``floor(span / every) + 1``
frames, ``every`` = fps / 10 scene frames at *Frame Rate: Game*, 1 at *Every Frame*; one more,
the end pose, where those steps pass the last frame by and the action ends elsewhere than it starts,
:func:`..sampling.action_sampling.action_frames`). For each
animation whose count is off, one line says the count, the rate, and a range or rate that gives the
expected count.
"""
from __future__ import annotations

import math

import bpy

from ...formats.md2.player import STANDARD_ANIMATIONS, standard_animation
from ...formats.message_text import quoted
from ..sampling.action_sampling import ends_elsewhere
from ..sampling.frame_rate import GAME_RATE, frames_between, scene_fps

_EPS = 1e-6


def _count(first: int, last: int, every: float, end_pose: bool = False) -> int:
    """Frames sampled from ``first`` to ``last``; with ``end_pose`` the last one also where the steps miss it."""
    frames = frames_between(first, last, every)
    return len(frames) + (1 if end_pose and frames[-1] != last else 0)


def _rate_text(rate: str, fps: float, every: float) -> str:
    if rate == "GAME":
        return f"Frame Rate: Game, one frame every 0.1 s (every {every:.4g} frames of the {fps:.4g} fps scene)"
    return f"Frame Rate: Every Frame, each frame of the {fps:.4g} fps scene"


def _fix(first: int, last: int, expected: int, rate: str, fps: float, step: int, end_pose: bool) -> str:
    """A frame range (at this rate) or the other rate that samples ``expected`` frames (the longest such
    range; ``end_pose``: the action gains its end pose where the steps miss it)."""
    every = fps / GAME_RATE if rate == "GAME" else 1.0
    hints = []
    if step > 1:
        hints.append("set Step 1")
        return " or ".join(hints)
    if rate == "SCENE" and _count(first, last, fps / GAME_RATE, end_pose) == expected:
        hints.append(f"set Frame Rate: Game (gives {expected})")
    ends = [end for end in range(max(first, math.floor(first + (expected - 2) * every)),
                                 math.ceil(first + (expected - 1) * every - _EPS) + 1)
            if _count(first, end, every, end_pose) == expected]
    if ends:
        end = ends[-1]
        length = f", {expected / GAME_RATE:.1f} s in the game" if rate == "GAME" else ""
        hints.append(f"make the action frames {first}-{end}{length}")
    elif rate == "GAME":
        hints.append(f"no whole-frame range of the {fps:.4g} fps scene gives {expected} frames at 10 per "
                     "second: raise the scene's frame rate")
    return " or ".join(hints)


def count_hints(scene: bpy.types.Scene, frame_names: list[str], rate: str, step: int) -> dict[str, str]:
    """Standard animation -> one line for each of the written body whose frame count is off, naming
    the action it came from, its range, the rate, and what gives the expected count."""
    counts: dict[str, int] = {}
    for name in frame_names:
        animation = standard_animation(name)
        if animation is not None:
            counts[animation] = counts.get(animation, 0) + 1
    actions = {a.name.lower(): a for a in bpy.data.actions}
    fps = scene_fps(scene)
    every = fps / GAME_RATE if rate == "GAME" else 1.0
    lines = {}
    for animation, expected in STANDARD_ANIMATIONS:
        count = counts.get(animation, 0)
        action = actions.get(animation)
        if count in (0, expected) or action is None:
            continue
        first, last = (int(round(f)) for f in action.frame_range)
        end_pose = step <= 1 and ends_elsewhere(action, None)
        fix = _fix(first, last, expected, rate, fps, step, end_pose)
        lines[animation] = (f"{animation}: {count} frames from action {quoted(action.name)} (frames {first}-{last}) at "
                            f"{_rate_text(rate, fps, every)}{f', Step {step}' if step > 1 else ''}; expected "
                            f"{expected}{': ' + fix if fix else ''}")
    return lines
