"""MD3 export as a Quake III player: the exported objects into one folder as ``lower.md3``, ``upper.md3``
and ``head.md3``, with ``animation.cfg``, a ``<part>_default.skin`` per part and the menu's icon rendered
from the head (:mod:`.player_icon`). A player an MD3 import assembled on the timeline is written back
from that form (:mod:`.player_timeline`); what follows is a player made in Blender, animated by actions.

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

import numpy as np

import bpy

from ...common.md3.contract import MD3_ANIMATION_CFG, MD3_ICONS
from ...common.stored_records import stored_bytes
from ...formats.atomic_file import atomic_write
from ...formats.errors import FormatError
from ...formats.images.truecolour import encode_tga
from ...formats.md3.animation_cfg import (
    ANIMATION_NAMES,
    REQUIRED_ANIMATIONS,
    AnimationCfg,
    Md3Animation,
    parse_animation_cfg,
    write_animation_cfg,
)
from ...formats.md3.codec import read_md3, write_md3
from ...formats.md3.skin_file import SkinEntry, SkinFile, write_skin
from ..export_error import ExportError
from ..game_path import skin_folder
from ..image_files import image_rgba
from ..run_export import ExportReport
from ..sampling.action_sampling import find_actions
from ..sampling.frame_rate import RATE_REPORT
from .build import Md3ExportOptions, build_md3
from .export import texture_files
from .objects import collect
from .player_icon import head_icon
from .player_timeline import build_timeline_parts, imported_parts, kept_skins, timeline_cfg
from .skin_check import skin_shader_warnings, source_place
from .skin_set_images import skin_set_images

PARTS = ("lower", "upper", "head")
PLAYER_FILE = "lower.md3"
PREFIXES = {"lower": ("l_", "lower"), "upper": ("u_", "upper", "torso"), "head": ("h_", "head")}
TAG_PARTS = {"tag_torso": "lower", "tag_floor": "lower", "tag_head": "upper", "tag_weapon": "upper"}
LOOPING = {"TORSO_STAND", "TORSO_STAND2", "LEGS_WALKCR", "LEGS_WALK", "LEGS_RUN", "LEGS_BACK", "LEGS_SWIM",
           "LEGS_IDLE", "LEGS_IDLECR", "LEGS_TURN"}
PLAYER = "Quake III player: "


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
            raw = stored_bytes(root, MD3_ANIMATION_CFG)
            if raw:
                try:
                    return parse_animation_cfg(raw)
                except FormatError:
                    return None
            root = root.parent
    return None


def _skin(model) -> bytes:
    return write_skin(SkinFile([SkinEntry(s.name.lower(), s.shaders[0].name if s.shaders else "")
                                for s in model.surfaces], tags=list(model.tag_names)))


def export_md3_player(context: bpy.types.Context, path: Path, objects: list[bpy.types.Object],
                      options: Md3ExportOptions) -> ExportReport:
    roots = imported_parts(objects)
    if roots is not None:
        return _timeline_player(context, path, roots, options)
    parts = _parts(objects)
    meshes = [o for p in PARTS for o in parts[p] if o.type == "MESH"]
    actions = _animations(meshes)
    if not actions:
        raise ExportError("a Quake III player is animated by actions named after the game's animations "
                          "(BOTH_DEATH1, TORSO_STAND, LEGS_RUN ...), or is a player an MD3 import assembled on "
                          "the timeline: neither is the case for these objects")
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
    built = {"lower": lower, "upper": upper, "head": head}
    files = {f"{part}.md3": write_md3(result.model) for part, result in built.items()}
    files["animation.cfg"] = write_animation_cfg(cfg)
    files.update({f"{part}_default.skin": _skin(result.model) for part, result in built.items()})
    tag_head = _tag(parts, "tag_head", "upper")
    icons, icon_note = _icons(context, [o for o in parts["head"] if o.type == "MESH"],
                              np.array(tag_head.evaluated_get(context.evaluated_depsgraph_get()).matrix_world),
                              ["default"])
    return _write_player(path, files | icons, list(built.values()), options, lines, icon_note)


def _timeline_player(context: bpy.types.Context, path: Path, roots: dict[str, bpy.types.Object],
                     options: Md3ExportOptions) -> ExportReport:
    """A player as an MD3 import assembled it on the timeline (:mod:`.player_timeline`)."""
    shaders = skin_folder(path, options.skin_path)
    built, lods = build_timeline_parts(context, roots, replace(options, skin_folder=shaders), shaders, path.parent)
    files = {f"{part}.md3": write_md3(built[part].model) for part in PARTS}
    files.update({name: write_md3(result.model) for name, result in lods.items()})
    files["animation.cfg"] = write_animation_cfg(timeline_cfg(roots, built))
    sets = []
    for part in PARTS:
        skins = kept_skins(roots[part]) or {f"{part}_default.skin": _skin(built[part].model)}
        files.update(skins)
        if part == "head":
            sets = [n[len("head_"):-len(".skin")] for n in skins if n.lower().startswith("head_")]
    source = source_place(roots["lower"])
    lines = skin_shader_warnings({n: d for n, d in files.items() if n.lower().endswith(".skin")},
                                 [path] + ([source] if source is not None else []), PLAYER)
    head = roots["head"]
    meshes = collect([head]).meshes
    kept = {} if options.render_icons else _kept_icons(roots["lower"])
    with skin_set_images(head, meshes) as set_images:
        icons, icon_note = _icons(context, meshes,
                                  np.array(head.evaluated_get(context.evaluated_depsgraph_get()).matrix_world),
                                  sets or ["default"], set_images, kept)
    return _write_player(path, files | icons, [*built.values(), *lods.values()], options, lines, icon_note)


def _write_player(path: Path, files: dict[str, bytes], results: list, options: Md3ExportOptions, lines: list[str],
                  icon_note: str) -> ExportReport:
    """The player's files into ``path``'s folder (each atomically, the models read back), its new textures
    where the game looks them up; the report."""
    folder = path.parent
    textures, notes = {}, []
    if options.textures == "TGA":
        for result in results:
            found, skipped = texture_files(path, result.shader_images)
            textures.update(found)
            notes += [n for n in skipped if n not in notes]
    for name, data in files.items():
        atomic_write(folder / name, data, verify=read_md3 if name.endswith(".md3") else None)
    for target, data in textures.items():
        atomic_write(target, data)
    warnings = lines + notes + [w for r in results for w in r.warnings]
    info = list(dict.fromkeys(i for r in results for i in r.info))   # the parts' rate lines (r.rate) give way
    info = [_rate_line(files["animation.cfg"])] + info + [icon_note]
    return ExportReport(warnings, [str(folder / n) for n in files if n != PLAYER_FILE] + [str(t) for t in textures],
                        info)


def _rate_line(cfg: bytes) -> str:
    """The player's line on the rate, in place of its parts' (``BuildResult.rate``, which speak of Quake's
    10 per second): Quake III plays each animation at the rate animation.cfg gives it (cgame
    ``CG_ParseAnimationFile``: ``frameLerp = 1000 / fps``), read back from the file written."""
    rates = sorted({line.game_fps for line in parse_animation_cfg(cfg).animations})
    return (f"{RATE_REPORT}{PLAYER}the game plays each animation at the rate animation.cfg gives it "
            f"({', '.join(f'{r:g}' for r in rates)} frames a second)")


def _kept_icons(root: bpy.types.Object) -> dict[str, bytes]:
    """The icons an import kept on lower's root (contract ``MD3_ICONS``): file name -> bytes."""
    group = root.get(MD3_ICONS)
    if not hasattr(group, "items"):
        return {}
    return {str(name): bytes(data) for name, data in group.items() if isinstance(data, (bytes, bytearray))}


def _icons(context: bpy.types.Context, meshes: list[bpy.types.Object], space: np.ndarray, sets: list[str],
           set_images=None, kept: dict[str, bytes] | None = None) -> tuple[dict[str, bytes], str]:
    """``icon_<set>.tga`` for each skin set, which the game needs to register the player at all
    (:mod:`.player_icon`): the player's own icons an import ``kept`` (every one, as it was, its author's
    drawing), else a Blender image named ``icon_<set>`` where there is one, else the head rendered,
    wearing the set's images where ``set_images`` (set name -> {mesh name: image} or None) finds them all."""
    out, notes, renders, shown = dict(kept or {}), [], {}, []
    if kept:
        notes.append(f"{', '.join(sorted(kept))} kept as imported")
    for name in sets:
        file = f"icon_{name}.tga"
        if any(Path(k).stem.lower() == f"icon_{name}".lower() for k in out):
            continue
        image = next((i for i in bpy.data.images if Path(i.name).stem.lower() == f"icon_{name}".lower()
                      and i.size[0] > 0), None)
        if image is not None:
            out[file] = encode_tga(image_rgba(image), bottom_up=True)
            notes.append(f"{file} from the image {image.name}")
            continue
        images = set_images(name) if set_images is not None else None
        key = tuple(sorted((mesh, image.name) for mesh, image in images.items())) if images else None
        if key not in renders:
            renders[key] = head_icon(context, meshes, space, images)
        out[file] = renders[key][0]
        if images is None:
            shown.append(file)
    rendered = [n for n in out if n not in (kept or {}) and not any(n in note for note in notes)]
    if rendered:
        note = next(iter(renders.values()))[1]
        notes.append(f"{', '.join(rendered)}: {note}" + (f" ({', '.join(shown)} as the head's materials show it: "
                                                         "its skin set's images not found in the game folder)"
                                                         if shown and set_images is not None else ""))
    return out, PLAYER + "; ".join(notes)


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
