"""When MD2 and MDL frames are sampled: at the game's rate or on every scene frame.

Quake and Quake II step model animations 10 times a second: Quake II's game advances one model
frame per server frame, ``#define FRAMETIME 0.1`` (id-Software/Quake-2 ``game/g_local.h``), and
Quake's QuakeC animations advance one frame per think, ``self.nextthink = time + 0.1``. With *Frame Rate:
Game* the scene's animation is sampled every 0.1 s of scene time, starting at ``frame_start``:
frame ``frame_start + k * fps / 10`` for every k that stays at or before ``frame_end`` (a subframe
where the scene rate is not a multiple of 10; scene fps = ``render.fps / render.fps_base``), so the
game plays it as long as Blender does. Where those steps pass the last frame by (frames 1-5 at 24 fps:
1 and 3.4) and the pose there is not the first pose, the last frame is written too, so the pose an
animation ends on reaches the game; a cycle that ends where it starts keeps its frames. A 10 fps scene
(what an import into an unanimated scene leaves) samples every scene
frame, as *Every Frame* does.
"""
from __future__ import annotations

import math

import numpy as np

import bpy

from ...formats.message_text import quoted

GAME_RATE = 10.0            # model frames per second in Quake and Quake II
_EPS = 1e-6


def scene_fps(scene: bpy.types.Scene) -> float:
    return scene.render.fps / scene.render.fps_base


def spacing(scene: bpy.types.Scene, rate: str) -> float:
    """Scene frames between two exported frames: fps / 10 for ``GAME``, 1 for ``SCENE``."""
    return scene_fps(scene) / GAME_RATE if rate == "GAME" else 1.0


def whole(frame: float) -> int | float:
    """``frame`` as an int when it is one (to rounding), else as it is."""
    nearest = round(frame)
    return int(nearest) if abs(frame - nearest) < _EPS else frame


def frames_between(first: float, last: float, step: float) -> list[int | float]:
    """``first``, ``first + step``, ... while at or before ``last``."""
    count = int(math.floor((last - first) / step + _EPS)) + 1 if last >= first else 1
    return [whole(first + k * step) for k in range(count)]


def timeline_frames(scene: bpy.types.Scene, rate: str) -> list[int | float]:
    """The scene frames a timeline export samples (integers, or fractional frames at the game rate)."""
    if rate != "GAME":
        return list(range(scene.frame_start, scene.frame_end + 1))
    return frames_between(scene.frame_start, scene.frame_end, spacing(scene, rate))


def _split(frame: float) -> tuple[int, float]:
    base = math.floor(frame + _EPS)
    return int(base), max(0.0, float(frame - base))


def set_frame(scene: bpy.types.Scene, frame: float) -> None:
    """Go to scene time ``frame`` (a whole frame plus a subframe)."""
    base, subframe = _split(frame)
    scene.frame_set(base, subframe=subframe)


def scene_times(frames: list) -> np.ndarray:
    """(F,) float32: the time Blender evaluates F-curves at after :func:`set_frame` to each of ``frames``:
    the subframe is kept as a float (``Scene.frame_set`` takes one, ``RenderData.subframe`` holds one) and
    added to the whole frame in float (``BKE_scene_frame_get``: ``float(cfra) + subframe``)."""
    split = [_split(frame) for frame in frames]
    whole_frames = np.array([b for b, _ in split], np.float32)
    return whole_frames + np.array([s for _, s in split], np.float32)


def frame_text(frame: float) -> str:
    """12, or 3.4 for a subframe."""
    frame = whole(frame)
    return str(frame) if isinstance(frame, int) else f"{frame:.4g}"


RATE_REPORT = "Frame rate: "       # how the lines on the rate start (:func:`rate_report` ...)


def rate_report(fps: float, rate: str, count: int) -> str:
    """The report line naming the rate the frames were sampled at (``fps``: the scene's)."""
    fps_text = f"{fps:.4g} fps scene"
    if rate == "GAME":
        if abs(fps - GAME_RATE) < _EPS:
            return f"Frame rate: Game, 10 per second: {count} frame(s), one per frame of the {fps_text}"
        return (f"Frame rate: Game, 10 per second: {count} frame(s), one every {fps / GAME_RATE:.4g} "
                f"scene frames of the {fps_text}")
    if abs(fps - GAME_RATE) < _EPS:
        return f"Frame rate: every scene frame: {count} frame(s) of the {fps_text}, the game's rate"
    return (f"Frame rate: every scene frame: {count} frame(s) of the {fps_text}; the game plays 10 per "
            f"second, so the animation runs {fps / GAME_RATE:.3g} times as long in the game")


def own_rate_report(own: float, fps: float, count: int) -> str:
    """The report line of frames sampled at the model's own rate ``own`` (an imported MD5 anim's)."""
    every = "every scene frame" if abs(fps - own) < _EPS else f"one every {fps / own:.4g} scene frames"
    return (f"Frame rate: the anim's own, {own:.4g} per second: {count} frame(s), {every} of the "
            f"{fps:.4g} fps scene")


SHOWN = 3       # animation names quoted in a report line


def end_pose_report(names: list[str]) -> str:
    """The report line naming the animations that gained their end pose as a last frame."""
    shown = ", ".join(quoted(n) for n in names[:SHOWN]) + (f" and {len(names) - SHOWN} more" if len(names) > SHOWN else "")
    return (f"End pose added: {len(names)} animation(s) gained their last pose as a frame (the game rate "
            f"passed it by): {shown}")
