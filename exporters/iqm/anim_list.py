"""Which anims an IQM export writes, in which order, at which frames, rate and loop flag.

- The actions: every action that animates the armature (:func:`..sampling.action_sampling.find_actions`:
  its active action, its NLA strips' and the unassigned ones whose F-curves move its bones; an action
  another model's import made or another object plays is left out), in default order the imported
  IQM's animation list first (the file's anim order), then the others by name. The export dialog's
  action list (``Scene.classic_export_actions``, as MD2, MDL and MD5 draw it) ticks and orders them;
  actions it does not list come last (a command-line export: every action in default order).
- An action a skeletal import made (an IQM's or an MD5's: the rate and frames its file gave it,
  ``common/contract.py`` ANIM_FRAME_RATE and ANIM_FRAME_COUNT, read by :mod:`...common.anim_timing`,
  which reads an earlier version's names too): its anim's name (an IQM's: the file's, where Blender only
  added a ``.001`` to the action's), rate and loop flag as the import stored them, its frames where the
  import keyed them (the first key, one every ``scene fps / rate`` scene frames to the last key; float32
  keys within 0.1% of a step).
- Any other action: named after the action, over its frame range (the first frame rounded, the last
  rounded up, as the other exports sample actions), at the scene's rate unless the action says
  otherwise (a custom property ``iqm_framerate`` above 0, ``IQM_ANIM_RATE``); it loops where it
  says so (``iqm_loop``), else where Blender's *Cyclic Animation* is on (*Manual Frame Range*), else
  unless its name starts like a death (``death``, ``die``, ``dead``: the rule of the ``.framegroups``
  the MD2 and MDL exports write).
"""
from __future__ import annotations

import math
import re

import bpy

from ...common.anim_timing import file_timing
from ...common.contract import DEFAULT_FPS, MAX_FPS, MIN_FPS
from ...common.iqm.contract import IQM_ANIM_INDEX, IQM_ANIM_LOOP, IQM_ANIM_RATE
from ...common.stored_records import stored_int
from ...formats.frame_scripts import loops_by_name
from ...formats.iqm.records import IqmModel
from ..sampling.action_sampling import find_actions, order_actions

STEP_SLACK = 1e-3           # float32 keys: a step's 0.1%


def armature_actions(armature: bpy.types.Object) -> list[bpy.types.Action]:
    """Every action that animates ``armature``, in default order (module docstring)."""
    return [action for action, target in find_actions([armature]) if target == armature]


def chosen_actions(armature: bpy.types.Object, listed: list[tuple[str, bool]] | None) -> list[bpy.types.Action]:
    """:func:`armature_actions` as the dialog's list (``(name, ticked)`` pairs) ticks and orders them."""
    by_name = {action.name: action for action in armature_actions(armature)}
    return [by_name[n] for n in order_actions(list(by_name), listed)]


def scene_rate(scene: bpy.types.Scene) -> float:
    return scene.render.fps / scene.render.fps_base


def _stored_rate(action: bpy.types.Action) -> float | None:
    value = action.get(IQM_ANIM_RATE)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    return float(value)


def _imported_name(action: bpy.types.Action, kept: IqmModel | None) -> str:
    """The file's anim name where the action is that anim's with Blender's ``.001`` added, else the action's."""
    index = stored_int(action, IQM_ANIM_INDEX, -1)
    if kept is None or not 0 <= index < len(kept.anims):
        return action.name
    name = kept.anim_names[index]
    return name if re.fullmatch(re.escape(name) + r"\.\d{3,}", action.name) else action.name


def _loop(action: bpy.types.Action) -> bool:
    stored = action.get(IQM_ANIM_LOOP)
    if isinstance(stored, (int, float)):
        return bool(stored)
    if action.use_frame_range and getattr(action, "use_cyclic", False):
        return True
    return loops_by_name(action.name)


def anim_of(action: bpy.types.Action, scene_fps: float, kept: IqmModel | None = None) -> tuple:
    """``(action, name, first_frame, last_frame, fps, loop)`` of one action (module docstring)."""
    start, end = (float(f) for f in action.frame_range)
    timing = file_timing(action)
    if timing is not None:                  # a skeletal import's: its rate, where it keyed the frames
        rate, frames = timing
        fps = rate if math.isfinite(rate) and MIN_FPS <= rate <= MAX_FPS else DEFAULT_FPS
        step = scene_fps / fps
        single = frames == 1 and end - start <= 1 + STEP_SLACK
        count = 1 if single else int(math.floor((end - start) / step + STEP_SLACK)) + 1
        return action, _imported_name(action, kept), start, start + (count - 1) * step, fps, _loop(action)
    rate = _stored_rate(action)             # made in Blender: iqm_framerate, else the scene's
    fps = rate if rate is not None and math.isfinite(rate) and rate > 0 else scene_fps
    first, last = int(round(start)), math.ceil(end - 1e-4)
    return action, action.name, first, last, fps, _loop(action)


def export_anims(context: bpy.types.Context, armature: bpy.types.Object | None, listed: list[tuple[str, bool]] | None,
                 kept: IqmModel | None = None) -> list[tuple]:
    """The anims of ``armature`` for :func:`.build.build_iqm` ([] without an armature)."""
    if armature is None:
        return []
    fps = scene_rate(context.scene)
    return [anim_of(action, fps, kept) for action in chosen_actions(armature, listed)]
