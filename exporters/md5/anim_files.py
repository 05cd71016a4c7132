"""Which ``.md5anim`` files an MD5 export writes, and at which rate, with *Frame Rate: Automatic* (the
MD5 export's default): an imported MD5 gives every anim back with its own frame count and rate.

* *Frames: Timeline* of an armature the import gave several anims (its animation list, one action per
  ``.md5anim``, ``common/md5/contract.py`` MD5_ANIM_SOURCE and MD5_ANIM_FILE; or per anim of another
  skeletal format, an IQM's, written as ``<action>.md5anim``): one file per anim, each action
  over its own frame range at its own ``frameRate`` (a frame every ``scene fps / frameRate`` scene
  frames: the times the import keyed), under the name of the file it was read from (one of the mesh's
  own name takes the export's: ``x.md5anim``). Actions the import split from one anim (MD5_ANIM_FRAMES,
  the classic pair's *Animations: Actions*) go back to that file together, in their order. An action
  made in Blender in that list is written as ``<action>.md5anim`` at the game's rate.
* *Frames: Timeline* otherwise: one file, at the ``frameRate`` of the anim the armature's action came from,
  under that anim's name (the mesh's own: ``x.md5anim``); a model made in Blender: ``x.md5anim`` at the
  game's 10 per second, as *Frame Rate: Game*.
* *Frames: Actions*: the listed actions one after another in ``x.md5anim``, at their anims' ``frameRate``
  where they all have one, else at the game's rate.

Another *Frame Rate* writes one ``x.md5anim`` at that rate; with *Frames: Timeline* over the scene's
range, which plays one of an armature's imported anims: the others are named in a warning.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

import bpy

from ...common.anim_timing import file_rate
from ...common.contract import DEFAULT_FPS, MAX_FPS, MIN_FPS
from ...common.md5.contract import MD5_ANIM_FILE, MD5_ANIM_FRAMES, MD5_ANIM_SOURCE, MD5_MESH_FILE, MD5_MESH_SOURCE
from ...common.stored_records import stored_bytes, stored_floats
from ..sampling.frame_plan import export_actions
from ..sampling.options import FrameExportOptions
from .write_back import KeptAnims

AUTO = "AUTO"
ANIM_SUFFIX = ".md5anim"


@dataclass
class AnimFile:
    """One ``.md5anim`` to write: its name beside the mesh (None: the mesh's name) and how to sample it."""
    name: str | None
    options: FrameExportOptions
    note: str = ""                  # a warning about what the file leaves out


def own_rate(action: bpy.types.Action | None, anims: KeptAnims, untouched=None) -> float | None:
    """The rate the import placed ``action``'s anim at: its file's rate (24 where the scene could not play
    it, as the import did), as every skeletal import keeps it (:func:`...common.anim_timing.file_rate`: an
    ``.md5anim``'s ``frameRate``, an IQM anim's); for an action an earlier version imported from an
    ``.md5anim``, the kept text's; None for an action made in Blender. ``anims``: the export's kept anims,
    each read once (several split actions hold one anim; the kept text is compared too); ``untouched``:
    the export's :class:`.untouched.Untouched`, which knows the rate of a text it can vouch for without
    reading it."""
    rate = file_rate(action)
    source = stored_bytes(action, MD5_ANIM_SOURCE) if action is not None and rate is None else None
    if source is not None:
        rate = untouched.rate(action) if untouched is not None else None
        if rate is None:
            record = anims(source)
            rate = None if record is None else float(record.frame_rate)
    return rate if rate is None or (math.isfinite(rate) and MIN_FPS <= rate <= MAX_FPS) else DEFAULT_FPS


def _file_name(action: bpy.types.Action, mesh_stem: str, own: bool) -> str | None:
    """The name ``action``'s anim is written under: its file's (None where that is the mesh's own name);
    an action with no file's name: ``<action>.md5anim`` where it has a file of its ``own``, else None."""
    stored = action.get(MD5_ANIM_FILE)
    name = PurePosixPath(stored.replace("\\", "/")).name if isinstance(stored, str) else ""
    if not name.lower().endswith(ANIM_SUFFIX):
        if not own:
            return None
        name = action.name.replace("/", "_").replace("\\", "_") + ANIM_SUFFIX
    return None if name[:-len(ANIM_SUFFIX)].lower() == mesh_stem.lower() else name


def _mesh_stem(armature: bpy.types.Object) -> str:
    """The name (without suffix) of the ``.md5mesh`` the armature was imported from."""
    stored = armature.get(MD5_MESH_FILE)
    return PurePosixPath(stored.replace("\\", "/")).stem if isinstance(stored, str) else ""


def _split_from(action: bpy.types.Action) -> bytes | None:
    """The anim an action split from one file continues (its bytes), else None."""
    if stored_floats(action, MD5_ANIM_FRAMES, 2) is None:
        return None
    return stored_bytes(action, MD5_ANIM_SOURCE)


def _groups(actions: list[bpy.types.Action]) -> list[list[bpy.types.Action]]:
    """The actions in files: one each, or consecutive actions split from one anim together."""
    out: list[list[bpy.types.Action]] = []
    for action in actions:
        split = _split_from(action)
        if out and split is not None and _split_from(out[-1][-1]) == split:
            out[-1].append(action)
        else:
            out.append([action])
    return out


def _unique(names: list[str | None], mesh_stem: str) -> list[str | None]:
    """``names`` with a number added where two would be the same file (None: the mesh's name's)."""
    seen: set[str] = set()
    out = []
    for name in names:
        full = name or f"{mesh_stem}{ANIM_SUFFIX}"
        shown, number = name, 2
        while (shown or full).lower() in seen:
            shown = f"{full[:-len(ANIM_SUFFIX)]}_{number}{ANIM_SUFFIX}"
            number += 1
        seen.add((shown or full).lower())
        out.append(shown)
    return out


def imported_anims(armature: bpy.types.Object) -> list[bpy.types.Action]:
    """The actions of an imported ``.md5mesh``'s animation list (the import made one per anim), or of an
    armature another skeletal format's import made (an IQM's: each action with its file's rate and no
    ``.md5anim`` text), else []."""
    settings = armature.classic_model
    if settings.animation_mode != "ACTIONS":
        return []
    actions = [item.action for item in settings.animations if item.action is not None]
    other = actions and all(file_rate(a) is not None and stored_bytes(a, MD5_ANIM_SOURCE) is None for a in actions)
    return actions if stored_bytes(armature, MD5_MESH_SOURCE) is not None or other else []


def anim_files(armature: bpy.types.Object, meshes: list[bpy.types.Object], options: FrameExportOptions,
               anims: KeptAnims | None = None, found: dict | None = None, untouched=None) -> list[AnimFile]:
    """The files to write (module docstring); each one's options have a frame rate the sampling knows.
    ``anims``: the export's kept anims (:class:`.kept.KeptAnims`), read once; ``found``: the actions found,
    for :func:`..sampling.frame_plan.export_actions` (filled here, used again by each file's plan);
    ``untouched``: see :func:`own_rate`."""
    if options.frame_rate != AUTO:
        listed = imported_anims(armature) if options.frame_source == "TIMELINE" else []
        action = armature.animation_data.action if armature.animation_data is not None else None
        left = [a.name for a in listed if a != action]
        note = "" if not left else (
            f"{len(left)} of the {len(listed)} imported anims are not in the .md5anim ({', '.join(left[:3])}"
            f"{' and more' if len(left) > 3 else ''}): Frames: Timeline samples the scene's range, which plays "
            "one of them; choose Frame Rate: Automatic (each anim to its own file) or Frames: Actions (all of "
            "them in one)")
        return [AnimFile(None, options, note)]
    cache = anims if anims is not None else KeptAnims()
    game = replace(options, frame_rate="GAME")
    listed = imported_anims(armature) if options.frame_source == "TIMELINE" else []
    if listed:
        groups = _groups(listed)
        stem = _mesh_stem(armature)
        names = _unique([_file_name(group[0], stem, True) for group in groups], stem)
        every = replace(game, frame_source="ACTIONS", actions=None, step=1)
        names_found = [action.name for action, _ in export_actions(meshes, every, found)]

        def ticked(group: list[bpy.types.Action]) -> list[tuple[str, bool]]:
            mine = [action.name for action in group]
            return [(name, True) for name in mine] + [(name, False) for name in names_found if name not in mine]
        return [AnimFile(name, replace(every, actions=ticked(group), own_fps=own_rate(group[0], cache, untouched)))
                for name, group in zip(names, groups)]
    if options.frame_source == "TIMELINE":
        action = armature.animation_data.action if armature.animation_data is not None else None
        rate = own_rate(action, cache, untouched)
        name = _file_name(action, _mesh_stem(armature), False) if rate is not None else None
        return [AnimFile(name, replace(game, own_fps=rate))]
    rates = {own_rate(action, cache, untouched) for action, _ in export_actions(meshes, options, found)}
    rate = rates.pop() if len(rates) == 1 else None
    return [AnimFile(None, replace(game, own_fps=rate))]
