"""A Quake III player as an MD3 import leaves it (common/md3/contract.py): three model roots, ``lower``,
``upper`` on lower's ``tag_torso`` and ``head`` on upper's ``tag_head``, every part's frames on the
timeline, ``animation.cfg`` kept on lower's root and listed as each part's animations (sidebar list and
markers), the ``.skin`` sets kept on each root. The player export writes it back from that form:

* each part from its own root, on the timeline, in its own frame (as the file had it: the game puts it on
  the parent's tag itself), its kept records written back (:func:`.build.build_md3`), and its levels of
  detail (:mod:`.lods`);
* ``animation.cfg`` from each part's animation list: an animation's first frame is the first frame the
  part writes at or after the list's start, its length the frames it writes up to the list's end; BOTH_*
  and TORSO_* numbered in upper.md3, LEGS_* in lower.md3 after the torso frames it lacks (the skip
  ``CG_ParseAnimationFile`` takes off, ioquake3 cg_players.c); looping frames, rates, sex, footsteps and
  the rest as the kept file says (a new file: the whole animation loops for the game's looping ones, the
  rate the parts play at). What says what the kept file said is written as its bytes
  (:func:`...formats.md3.animation_cfg.write_animation_cfg`);
* each part's skin sets as the files they were (``<part>_<set>.skin``), or a ``<part>_default.skin`` of
  its surfaces' shaders where the import kept none.
"""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path, PurePosixPath

import bpy

from ...common.contract import MD3_ROOT
from ...common.md3.contract import MD3_ANIMATION_CFG, MD3_LOD, MD3_SKINS
from ...common.stored_records import stored_bytes, stored_int
from ...formats.errors import FormatError
from ...formats.md3.animation_cfg import (
    ANIMATION_NAMES,
    REQUIRED_ANIMATIONS,
    AnimationCfg,
    Md3Animation,
    parse_animation_cfg,
)
from ..export_error import ExportError
from .build import BuildResult, Md3ExportOptions, build_md3
from .lods import build_lods, left_out_lods, own_frame
from .objects import is_root

PARTS = ("lower", "upper", "head")
LOOPING = {"TORSO_STAND", "TORSO_STAND2", "LEGS_WALKCR", "LEGS_WALK", "LEGS_RUN", "LEGS_BACK", "LEGS_SWIM",
           "LEGS_IDLE", "LEGS_IDLECR", "LEGS_TURN"}


def _hierarchy(obj: bpy.types.Object) -> list[bpy.types.Object]:
    return [obj] + [o for child in obj.children for o in _hierarchy(child)]


def imported_parts(objects: list[bpy.types.Object]) -> dict[str, bpy.types.Object] | None:
    """``lower``/``upper``/``head`` -> the model roots of an imported player the objects belong to (searched
    from the top of each object's hierarchy), or None unless all three are there."""
    tops = []
    for obj in objects:
        while obj.parent is not None:
            obj = obj.parent
        if obj not in tops:
            tops.append(obj)
    roots: dict[str, bpy.types.Object] = {}
    for top in tops:
        for obj in _hierarchy(top):
            part = obj.get(MD3_ROOT) if is_root(obj) else None
            if part in PARTS and not stored_int(obj, MD3_LOD, 0):
                roots.setdefault(part, obj)
    return roots if len(roots) == len(PARTS) else None


def _span(result: BuildResult, start: float, end: float) -> tuple[int, int] | None:
    """(first frame, count) of the part's written frames from scene frame ``start`` through ``end``."""
    inside = [i for i, t in enumerate(result.frame_times) if start - 1e-4 <= t <= end + 1e-4]
    return (inside[0], len(inside)) if inside else None


def _listed(root: bpy.types.Object, result: BuildResult, prefixes: tuple[str, ...]) -> dict[str, tuple[int, int]]:
    out = {}
    for item in root.classic_model.animations:
        name = item.name.upper()
        if name in ANIMATION_NAMES and name.startswith(prefixes) and name not in out:
            span = _span(result, item.frame_start, item.frame_end)
            if span is not None:
                out[name] = span
    return out


def _kept_cfg(lower: bpy.types.Object) -> AnimationCfg | None:
    raw = stored_bytes(lower, MD3_ANIMATION_CFG)
    if not raw:
        return None
    try:
        return parse_animation_cfg(raw)
    except FormatError:
        return None


def _listed_span(cfg: AnimationCfg, index: int, result: BuildResult) -> tuple[int, int] | None:
    """(first, count) an import lists for animation ``index`` of ``cfg`` in a part of the result's frames
    (importers/md3/md3_player.py ``part_animations``: at least one frame, cut at the part's last)."""
    first = cfg.model_first_frame(index) if index < REQUIRED_ANIMATIONS else cfg.animations[index].first
    frames = result.model.num_frames
    if not 0 <= first < frames:
        return None
    return first, min(first + max(abs(cfg.animations[index].num), 1) - 1, frames - 1) - first + 1


def timeline_cfg(roots: dict[str, bpy.types.Object], built: dict[str, BuildResult]) -> AnimationCfg:
    """animation.cfg of the parts' animation lists (see the module docstring)."""
    kept = _kept_cfg(roots["lower"])
    upper = _listed(roots["upper"], built["upper"], ("BOTH_", "TORSO_"))
    lower = _listed(roots["lower"], built["lower"], ("LEGS_",))
    old = {a.name: (i, a) for i, a in enumerate(kept.animations)} if kept is not None else {}
    torso = [first for name, (first, _) in upper.items() if name.startswith("TORSO_")]
    skip = kept.legs_skip if kept is not None else (built["upper"].model.num_frames - min(torso)) if torso else 0
    count = len(kept.animations) if kept is not None else (
        len(ANIMATION_NAMES) if any(n in upper for n in ANIMATION_NAMES[REQUIRED_ANIMATIONS:]) else REQUIRED_ANIMATIONS)
    animations, missing = [], []
    for name in ANIMATION_NAMES[:count]:
        legs = name.startswith("LEGS_")
        span = lower.get(name) if legs else upper.get(name)
        index, before = old.get(name, (None, None))
        if before is not None and (span is None or span == _listed_span(kept, index, built["lower" if legs else "upper"])):
            animations.append(before)                 # as the import listed it: the file's own numbers
        elif span is None:
            missing.append(name)
        elif before is not None:
            num = -span[1] if before.num < 0 else span[1]           # played backwards: the kept sign
            animations.append(replace(before, first=span[0] + (skip if legs else 0), num=num))
        else:
            animations.append(Md3Animation(name, span[0] + (skip if legs else 0), span[1],
                                           span[1] if name in LOOPING else 0, built["upper"].model_fps))
    if missing:
        raise ExportError(f"Quake III player: {len(missing)} animation(s) in neither part's animation list nor a "
                          f"kept animation.cfg: {', '.join(missing[:6])}{' ...' if len(missing) > 6 else ''}")
    return replace(kept, animations=animations) if kept is not None else AnimationCfg(animations)


def kept_skins(root: bpy.types.Object) -> dict[str, bytes]:
    """The ``.skin`` files an import kept on a part's root: file name -> bytes."""
    try:
        record = json.loads(str(root.get(MD3_SKINS) or "{}"))
        return {PurePosixPath(str(v["file"]).replace("\\", "/")).name: bytes.fromhex(v["raw"])
                for v in record.values()}
    except (ValueError, KeyError, TypeError, AttributeError):
        return {}


def build_timeline_parts(context: bpy.types.Context, roots: dict[str, bpy.types.Object], options: Md3ExportOptions,
                         shaders: str, folder: Path | None = None) -> tuple[dict[str, BuildResult], dict[str, BuildResult]]:
    """Each part (and its LODs, by file name) built from its root on the timeline; a warning on a part whose
    levels of detail were left out at import (:func:`.lods.left_out_lods`, ``folder``: where it goes)."""
    built, lods = {}, {}
    base = replace(options, frame_source="TIMELINE")
    for step, part in enumerate(PARTS):
        part_options = replace(base, model_name=f"{shaders}/{part}.md3" if shaders else f"{part}.md3")
        with own_frame(roots[part]):
            built[part] = build_md3(context, [roots[part]], part_options)
        if options.lods:
            lods.update(build_lods(context, roots[part], f"{part}.md3", part_options))
            if folder is not None:
                built[part].warnings += left_out_lods(roots[part], f"{part}.md3", folder)
        context.window_manager.progress_update(0.3 * (step + 1))
    return built, lods
