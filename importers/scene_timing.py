"""Whether an import sets the scene's frame rate and range, or keeps the scene's rate.

A scene's rate belongs to everything animated in it: setting it to a model's 10 fps makes a cube
keyed over 1-20 at 24 fps play 2.4 times as long, and a second import (an MS3D rig at 25 fps) would
make a first one (a Quake II player at 10 fps) play 2.5 times too fast. So with *Scene Timing:
Automatic* an import sets the scene's rate and range only where nothing else in the scene is
animated (a new scene, the default cube); otherwise the scene keeps its rate and the model's frames
are placed at it: file frame k at scene frame ``start + k * scene_fps / model_fps`` (a subframe where
that is not whole), so it plays as many seconds as in the game, and the scene range is extended (never
shrunk) to hold them. *Set Scene Rate* always sets the model's rate, *Keep Scene Rate* always keeps
the scene's.

Animated means: an object of the scene, its data or its shape keys with an action or NLA tracks,
present before this import started (what the import makes itself does not count).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import bpy

from ..formats.message_text import quoted

SCENE_TIMING_ITEMS = (
    ("AUTO", "Automatic", "Set the scene's frame rate and range to the model's, unless something else in the "
                          "scene is animated: then keep the scene's rate and place the model's frames at it"),
    ("SET", "Set Scene Rate", "Set the scene's frame rate and range to the model's, even where other animation "
                              "in the scene then plays at another speed"),
    ("KEEP", "Keep Scene Rate", "Keep the scene's frame rate and place the model's frames at it, so it plays "
                                "as many seconds as in the game; the scene range grows to hold them"),
)
_EPS = 1e-4


def _animated(id_block) -> bool:
    anim = getattr(id_block, "animation_data", None)
    return anim is not None and (anim.action is not None or len(anim.nla_tracks) > 0)


def animated_objects(scene: bpy.types.Scene) -> list[bpy.types.Object]:
    """The scene's objects animated by an action or NLA (on the object, its data or its shape keys)."""
    out = []
    for obj in scene.objects:
        data = obj.data
        keys = getattr(data, "shape_keys", None) if data is not None else None
        if any(_animated(i) for i in (obj, data, keys) if i is not None):
            out.append(obj)
    return out


def scene_fps(scene: bpy.types.Scene) -> float:
    return scene.render.fps / scene.render.fps_base


@dataclass
class SceneTiming:
    """Decided once per import, before it builds anything."""
    keep: bool              # place the model's frames at the scene's rate (else set the scene's rate)
    scene_fps: float        # the scene's rate when the import started
    reason: str             # why the rate is kept, for the report
    shown: bool = field(default=False)   # the scene shows an imported model: one from before this import
                                         # started, or a part this import placed already (a player's)

    def step(self, model_fps: float) -> float:
        """Scene frames per model frame."""
        return self.scene_fps / model_fps if self.keep else 1.0

    def fps(self, model_fps: float) -> float:
        """The rate the model's frames are placed at."""
        return self.scene_fps if self.keep else model_fps


def plan_timing(scene: bpy.types.Scene, mode: str) -> SceneTiming:
    """``mode``: 'AUTO', 'SET' or 'KEEP' (the import option *Scene Timing*)."""
    shown = any(o.classic_model.source_format for o in scene.objects)
    if mode == "SET":
        return SceneTiming(False, scene_fps(scene), "", shown)
    if mode == "KEEP":
        return SceneTiming(True, scene_fps(scene), "Scene Timing: Keep Scene Rate", shown)
    animated = animated_objects(scene)
    if not animated:
        return SceneTiming(False, scene_fps(scene), "", shown)
    names = ", ".join(quoted(o.name) for o in animated[:2]) + (f" and {len(animated) - 2} more" if len(animated) > 2
                                                               else "")
    return SceneTiming(True, scene_fps(scene), f"the scene already animates {names}", shown)


def apply_timing(scene: bpy.types.Scene, timing: SceneTiming, start: int, last: float, model_fps: float) -> None:
    """Make the scene play scene frames ``start`` to ``last``: keeping its rate, the range only grows;
    else at the model's rate, from ``start`` (a scene that already shows imported models keeps the
    longest range: one shown before this import started (``timing.shown``; what this import builds is
    not another model), or a part of this import placed before (a player's upper and head parts, its
    weapons))."""
    end = max(start, math.ceil(last - _EPS))
    if timing.keep:
        scene.frame_end = max(scene.frame_end, end)
        return
    scene.render.fps = max(round(model_fps), 1)
    scene.render.fps_base = scene.render.fps / model_fps
    scene.frame_start = start
    scene.frame_end = max(scene.frame_end, end) if timing.shown else end
    timing.shown = True


def timing_note(label: str, timing: SceneTiming, model_fps: float) -> str | None:
    """The report's one line when the model's frames were placed at another rate than its own."""
    if not timing.keep or abs(timing.scene_fps - model_fps) < 1e-6:
        return None
    return (f"{label}: the scene keeps its {timing.scene_fps:.4g} fps ({timing.reason}): the model's "
            f"{model_fps:.4g} fps frames are placed every {timing.step(model_fps):.4g} scene frames so it plays "
            f"at its own speed (import option Scene Timing: Set Scene Rate uses the model's rate)")
