"""MD3 export as a Quake III player: the exported objects into one folder as ``lower.md3``, ``upper.md3``
and ``head.md3``, with ``animation.cfg`` and a ``<part>_default.skin`` per part.

The game (ioquake3 cgame ``cg_players.c``) draws the legs at the entity, the torso on the legs'
``tag_torso`` and the head on the torso's ``tag_head`` (``CG_PositionRotatedEntityOnTag``), the weapon
on the torso's ``tag_weapon``; so upper.md3 is written in the frame of ``tag_torso`` and head.md3 in the
frame of ``tag_head``, each taken at every exported frame: a body rigged as one in Blender comes apart
into parts that join again in the game.

* Parts: an object in a collection named ``lower``, ``upper`` or ``head``, else by its name: ``l_*`` /
  ``lower*``, ``u_*`` / ``upper*`` / ``torso*``, ``h_*`` / ``head*`` (the surface names id's players use);
  tags ``tag_torso`` and ``tag_floor`` go to lower.md3, ``tag_head`` and ``tag_weapon`` to upper.md3.
* Frames: actions named after the game's animations (bg_public.h ``animNumber_t``, any case), sampled one
  after another in the game's order (:mod:`...formats.md3.animation_cfg`): upper.md3 holds the ``BOTH_*``
  then ``TORSO_*`` frames, lower.md3 the ``BOTH_*`` then ``LEGS_*`` frames, head.md3 one frame (the game
  never animates the head: ``CG_Player`` sets no head frame).
* ``animation.cfg``: each animation's first frame in the game's numbering (BOTH, TORSO, LEGS one after
  another; lower.md3 lacks the TORSO frames, ``CG_ParseAnimationFile``'s skip), its frame count, looping
  frames (the whole animation for the stands, walks, runs, swim, idles and turn; 0 for the others, as
  id's players) and the rate the frames were sampled at. A missing animation plays another (the report
  names them): TORSO_* the torso's stand, LEGS_* the legs' idle, BOTH_* the first frames.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import bpy

from ...common.contract import MD3_ANIMATION_CFG
from ...formats.atomic_file import atomic_write
from ...formats.md3.animation_cfg import (ANIMATION_NAMES, REQUIRED_ANIMATIONS, AnimationCfg, Md3Animation,
                                         parse_animation_cfg, write_animation_cfg)
from ...formats.md3.codec import read_md3, write_md3
from ...formats.md3.skin_file import SkinEntry, SkinFile, write_skin
from ...formats.errors import FormatError
from ..export_error import ExportError
from ..game_path import skin_folder
from ..run_export import ExportReport
from ..sampling.action_sampling import find_actions
from ..sampling.skin_packing import FlatSkin
from ..image_files import image_rgba
from ...formats.images.truecolour import encode_tga
from .build import Md3ExportOptions, build_md3
from .export import texture_files
from .objects import collect

PARTS = ("lower", "upper", "head")
PLAYER_FILE = "lower.md3"
PREFIXES = {"lower": ("l_", "lower"), "upper": ("u_", "upper", "torso"), "head": ("h_", "head")}
TAG_PARTS = {"tag_torso": "lower", "tag_floor": "lower", "tag_head": "upper", "tag_weapon": "upper"}
LOOPING = {"TORSO_STAND", "TORSO_STAND2", "LEGS_WALKCR", "LEGS_WALK", "LEGS_RUN", "LEGS_BACK", "LEGS_SWIM",
           "LEGS_IDLE", "LEGS_IDLECR", "LEGS_TURN"}
PLAYER = "Quake III player: "
ICON_FILE = "icon_default.tga"
ICON_SIZE = 64


def part_of(obj: bpy.types.Object) -> str | None:
    for collection in obj.users_collection:
        if collection.name.lower() in PARTS:
            return collection.name.lower()
    name = obj.name.lower()
    if obj.type == "EMPTY":
        return TAG_PARTS.get(name.split(".")[0])
    return next((part for part, prefixes in PREFIXES.items() if name.startswith(prefixes)), None)


def _parts(objects: list[bpy.types.Object]) -> dict[str, list[bpy.types.Object]]:
    found = collect(objects)
    parts: dict[str, list[bpy.types.Object]] = {p: [] for p in PARTS}
    strays = []
    for obj in found.meshes + found.tags:
        part = part_of(obj)
        (parts[part] if part else strays).append(obj)
    if strays:
        raise ExportError(f"{len(strays)} object(s) belong to no player part ({', '.join(o.name for o in strays[:3])}): "
                          "put them in a collection named lower, upper or head, or name them l_*, u_*, h_*")
    missing = [p for p in PARTS if not any(o.type == "MESH" for o in parts[p])]
    if missing:
        raise ExportError(f"a Quake III player has three parts; no mesh for {', '.join(missing)} (name the objects "
                          "l_*, u_* and h_*, or put them in collections named lower, upper and head)")
    return parts


def _tag(parts: dict, name: str, part: str) -> bpy.types.Object:
    tag = next((o for o in parts[part] if o.type == "EMPTY" and o.name.lower().split(".")[0] == name), None)
    if tag is None:
        raise ExportError(f"a Quake III player needs an empty {name} in its {part} part: the game attaches the "
                          f"{'torso' if name == 'tag_torso' else 'head'} there")
    return tag


def _animations(meshes: list[bpy.types.Object]) -> dict[str, str]:
    """Game animation name -> the action named after it (any case)."""
    out: dict[str, str] = {}
    for action, _ in find_actions(meshes):
        key = action.name.upper()
        if key in ANIMATION_NAMES and key not in out:
            out[key] = action.name
    return out


def _listed(names: list[str], actions: dict[str, str]) -> list[tuple[str, bool]]:
    """The export's action list: ``names``' actions ticked in that order, every other action unticked."""
    chosen = [actions[n] for n in names if n in actions]
    return [(a, True) for a in chosen] + [(a, False) for a in actions.values() if a not in chosen]


def _counts(frame_actions: list[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for name in frame_actions:
        counts[name] = counts.get(name, 0) + 1
    return counts


def animation_cfg(actions: dict[str, str], upper_counts: dict[str, int], lower_counts: dict[str, int], fps: float,
                  kept: AnimationCfg | None) -> tuple[AnimationCfg, list[str]]:
    """The animation.cfg of the sampled frames (see the module docstring), and the report's lines."""
    both = [n for n in ANIMATION_NAMES if n.startswith("BOTH_") and n in actions]
    torso = [n for n in ANIMATION_NAMES if n.startswith("TORSO_") and n in actions]      # Team Arena's last
    legs = [n for n in ANIMATION_NAMES if n.startswith("LEGS_") and n in actions]
    first, at = {}, 0
    for name in both:
        first[name], at = at, at + upper_counts.get(actions[name], 0)
    both_end = at
    for name in torso:
        first[name], at = at, at + upper_counts.get(actions[name], 0)
    torso_end = at
    for name in legs:
        first[name], at = at, at + lower_counts.get(actions[name], 0)
    count = {n: (upper_counts if not n.startswith("LEGS_") else lower_counts).get(actions[n], 0) for n in first}
    lines, missing = [], []
    stand = "TORSO_STAND" if "TORSO_STAND" in first else (torso[0] if torso else None)
    idle = "LEGS_IDLE" if "LEGS_IDLE" in first else (legs[0] if legs else None)
    animations = []
    team_arena = any(n in actions for n in ANIMATION_NAMES[REQUIRED_ANIMATIONS:])
    for index, name in enumerate(ANIMATION_NAMES if team_arena else ANIMATION_NAMES[:REQUIRED_ANIMATIONS]):
        if name in first:
            start, num = first[name], count[name]
        elif index >= REQUIRED_ANIMATIONS:                  # Team Arena's: the game copies TORSO_GESTURE
            gesture = animations[ANIMATION_NAMES.index("TORSO_GESTURE")]
            start, num = gesture.first, gesture.num
        else:
            missing.append(name)
            source = {"TORSO": stand, "LEGS": idle}.get(name.split("_")[0])
            if name == "TORSO_GESTURE":                     # where the torso frames start: the game's skip
                start, num = both_end, 1
            elif name == "LEGS_WALKCR":
                start, num = torso_end, 1
            elif source is not None:
                start, num = first[source], count[source]
            else:
                start, num = 0, 1
        animations.append(Md3Animation(name, start, num, num if name in LOOPING else 0, fps))
    cfg = AnimationCfg(animations)
    if kept is not None:
        cfg = replace(kept, animations=animations)
    if missing:
        lines.append(f"{PLAYER}{len(missing)} animation(s) without an action named after them, played with other "
                     f"frames: {', '.join(missing[:6])}{' ...' if len(missing) > 6 else ''}")
    return cfg, lines


def _kept_cfg(objects: list[bpy.types.Object]) -> AnimationCfg | None:
    for obj in objects:
        root = obj
        while root is not None:
            raw = root.get(MD3_ANIMATION_CFG)
            if raw:
                try:
                    return parse_animation_cfg(bytes(raw))
                except FormatError:
                    return None
            root = root.parent
    return None


def _skin(model) -> bytes:
    return write_skin(SkinFile([SkinEntry(s.name.lower(), s.shaders[0].name if s.shaders else "")
                                for s in model.surfaces], tags=list(model.tag_names)))


def export_md3_player(context: bpy.types.Context, path: Path, objects: list[bpy.types.Object],
                      options: Md3ExportOptions) -> ExportReport:
    folder = path.parent
    parts = _parts(objects)
    meshes = [o for p in PARTS for o in parts[p] if o.type == "MESH"]
    actions = _animations(meshes)
    if not actions:
        raise ExportError("a Quake III player is animated by actions named after the game's animations "
                          "(BOTH_DEATH1, TORSO_STAND, LEGS_RUN ...): none of the actions animating the objects is")
    shaders = skin_folder(path, options.skin_path)
    base = replace(options, frame_source="ACTIONS", fit_names=True, skin_folder=shaders)
    upper_names = [n for n in ANIMATION_NAMES if n.startswith(("BOTH_", "TORSO_"))]
    lower_names = [n for n in ANIMATION_NAMES if n.startswith(("BOTH_", "LEGS_"))]
    wm = context.window_manager
    lower = build_md3(context, parts["lower"], replace(base, actions=_listed(lower_names, actions),
                                                       model_name=f"{shaders}/lower.md3" if shaders else "lower.md3"))
    wm.progress_update(0.4)
    upper = build_md3(context, parts["upper"], replace(base, actions=_listed(upper_names, actions),
                                                       model_name=f"{shaders}/upper.md3" if shaders else "upper.md3"),
                      space=_tag(parts, "tag_torso", "lower"))
    wm.progress_update(0.8)
    head = _head(context, parts, options, shaders)
    cfg, lines = animation_cfg(actions, _counts(upper.frame_actions), _counts(lower.frame_actions), upper.model_fps,
                               _kept_cfg(objects))
    files = {"lower.md3": write_md3(lower.model), "upper.md3": write_md3(upper.model),
             "head.md3": write_md3(head.model), "animation.cfg": write_animation_cfg(cfg)}
    icon, icon_note = _icon(parts["head"])
    files[ICON_FILE] = icon
    for part, result in (("lower", lower), ("upper", upper), ("head", head)):
        files[f"{part}_default.skin"] = _skin(result.model)
    textures, notes = {}, []
    if options.textures == "TGA":
        for result in (lower, upper, head):
            found, skipped = texture_files(path, result.shader_images)
            textures.update(found)
            notes += skipped
    for name, data in files.items():
        atomic_write(folder / name, data, verify=read_md3 if name.endswith(".md3") else None)
    for target, data in textures.items():
        atomic_write(target, data)
    warnings = lines + notes + [w for r in (lower, upper, head) for w in r.warnings]
    info = list(dict.fromkeys(i for r in (lower, upper, head) for i in r.info)) + [icon_note]
    return ExportReport(warnings, [str(folder / n) for n in files if n != "lower.md3"] + [str(t) for t in textures],
                        info)


def _icon(head: list[bpy.types.Object]) -> tuple[bytes, str]:
    """``icon_default.tga``, which the game needs to register the player at all (``CG_RegisterClientModelname``
    returns false without ``ci->modelIcon``): a Blender image named ``icon_default``, else a flat
    ``ICON_SIZE`` square of the head's first material's base colour."""
    image = next((i for i in bpy.data.images if Path(i.name).stem.lower() == "icon_default" and i.size[0] > 0), None)
    if image is not None:
        return encode_tga(image_rgba(image), bottom_up=True), f"{PLAYER}icon {ICON_FILE} from the image {image.name}"
    material = next((s.material for o in head if o.type == "MESH" for s in o.material_slots if s.material), None)
    flat = FlatSkin.of(material, ICON_SIZE, ICON_SIZE)
    return encode_tga(flat.rgba(), bottom_up=True), (f"{PLAYER}{ICON_FILE} is a flat square of the head's colour {flat.colour[:3]} "
                                     "(the player menu shows it; make an image named icon_default for a picture)")


def _head(context: bpy.types.Context, parts: dict, options: Md3ExportOptions, shaders: str):
    """head.md3: one frame, at the scene's current frame, in the frame of the torso's tag_head."""
    scene = context.scene
    saved = scene.frame_start, scene.frame_end
    scene.frame_start = scene.frame_end = scene.frame_current
    try:
        return build_md3(context, parts["head"], replace(options, frame_source="TIMELINE", keep_still_frames=False,
                                                         skin_folder=shaders,
                                                         model_name=f"{shaders}/head.md3" if shaders else "head.md3"),
                         space=_tag(parts, "tag_head", "upper"))
    finally:
        scene.frame_start, scene.frame_end = saved
