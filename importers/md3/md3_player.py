"""A Quake III player folder (``lower.md3``, ``upper.md3``, ``head.md3``, ``animation.cfg``) imported
assembled, as cgame places the parts (ioquake3 code/cgame/cg_players.c ``CG_Player``)::

    CG_PositionRotatedEntityOnTag( &torso, &legs, ci->legsModel, "tag_torso" );
    CG_PositionRotatedEntityOnTag( &head, &torso, ci->torsoModel, "tag_head" );

so upper's root is a child of lower's ``tag_torso`` empty and head's root of upper's ``tag_head`` empty
(identity parent inverse): each frame the part sits on the tag's transform of that frame, the child's
own rotation left at rest (the game turns the torso and head toward the view angles on top of it).

``animation.cfg`` (:mod:`...formats.md3.animation_cfg`) gives the named animations: ``BOTH_*`` on
lower and upper, ``TORSO_*`` on upper, ``LEGS_*`` on lower at their number minus the torso frames
lower.md3 lacks (``CG_ParseAnimationFile``: ``skip``). Each part's animations are its sidebar list;
markers name them on the timeline. The parts play at the rate most of the file's frames are given.
"""
from __future__ import annotations

from collections import Counter

import bpy

from ...common.contract import MD3_TAG_INDEX
from ...common.md3.contract import MD3_ANIMATION_CFG, MD3_ICONS
from ...formats.animations import Animation
from ...formats.errors import FormatError
from ...formats.md3.animation_cfg import AnimationCfg, parse_animation_cfg
from ...formats.md3.player import ICON_EXTENSIONS
from ...formats.md3.player import part_animations as cfg_part_animations
from ...formats.md3.records import Md3Model
from ...formats.md3.tags import find_tag
from ..file_source import FoundFile, ModelSource
from .md3_build import MD3_FPS, Md3Build, add_lods, add_model, read_md3_source, sibling_source
from .md3_skins import ShaderImages

PARTS = ("lower", "upper", "head")
ATTACH = {"upper": ("lower", "tag_torso"), "head": ("upper", "tag_head")}


def player_parts(source: ModelSource, images: ShaderImages) -> dict[str, FoundFile | None] | None:
    """For a ``lower.md3`` with ``upper.md3`` and ``head.md3`` beside it: the three files and
    ``animation.cfg`` (None if absent); else None."""
    if source.name.lower() != "lower.md3":
        return None
    listing = images.beside()
    if not all(f"{part}.md3" in listing for part in PARTS):
        return None
    return {**{part: listing[f"{part}.md3"] for part in PARTS}, "cfg": listing.get("animation.cfg")}


def player_fps(cfg: AnimationCfg | None) -> float:
    """The rate most of the animations' frames play at (10 without animation.cfg)."""
    if cfg is None or not cfg.animations:
        return MD3_FPS
    weights = Counter()
    for anim in cfg.animations:
        weights[anim.game_fps] += abs(anim.num)
    return float(weights.most_common(1)[0][0])


def part_animations(cfg: AnimationCfg | None, part: str, num_frames: int) -> list[Animation]:
    """The animations of ``part`` in its own frame numbers, cut to its frames."""
    return [anim for anim, _ in cfg_part_animations(cfg, part, num_frames)]


def player_icons(listing: dict[str, FoundFile], warnings: list[str], label: str) -> dict[str, bytes]:
    """The player's own icons (``icon_<set>`` with an extension the game tries, ``CG_RegisterClientModelname``)
    beside it: file name -> bytes, kept for the export (contract ``MD3_ICONS``)."""
    out = {}
    for name, found in listing.items():
        if name.startswith("icon_") and name.endswith(ICON_EXTENSIONS):
            try:
                out[found.name] = found.read()
            except OSError as exc:
                warnings.append(f"{label}: {found.name} cannot be read, not kept: {exc.strerror or exc}")
    return out


def import_player(build: Md3Build, source: ModelSource, data: bytes, model: Md3Model,
                  parts: dict[str, FoundFile | None]) -> bpy.types.Object:
    """The three parts assembled; returns lower's root."""
    result = build.result
    cfg, raw = None, None
    if parts["cfg"] is not None:
        try:
            raw = parts["cfg"].read()
            cfg = parse_animation_cfg(raw)
            result.warnings += [f"{source.label}: animation.cfg: {w}" for w in cfg.warnings]
        except (FormatError, OSError) as exc:
            result.warnings.append(f"{source.label}: animation.cfg not used: {exc}")
    build.fps = player_fps(cfg)
    roots, models = {}, {}
    for part in PARTS:
        if part == "lower":
            part_source, part_data, part_model = source, data, model
        else:
            part_source = sibling_source(source, parts[part])
            part_data, part_model = read_md3_source(part_source)
            result.files += 1
        roots[part] = add_model(build, part_source, part_data, part_model, part,
                                part_animations(cfg, part, part_model.num_frames))
        models[part] = part_model
        if build.options.load_lods:
            add_lods(build, part_source, roots[part])
    if raw is not None:
        roots["lower"][MD3_ANIMATION_CFG] = raw
    icons = player_icons(build.images.beside(), result.warnings, source.label)
    if icons:
        roots["lower"][MD3_ICONS] = icons
    for child, (parent, tag) in ATTACH.items():
        index = find_tag(models[parent], tag)
        if index is None:
            result.warnings.append(f"{source.label}: {parent}.md3 has no {tag}: {child}.md3 is not attached")
            continue
        empty = next(c for c in roots[parent].children if c.get(MD3_TAG_INDEX) == index)
        roots[child].parent = empty
    result.infos.append(f"{source.label}: Quake III player assembled (upper on lower's tag_torso, head on "
                        f"upper's tag_head){'' if cfg is not None else '; no animation.cfg beside it'}")
    return roots["lower"]
