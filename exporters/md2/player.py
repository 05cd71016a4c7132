"""MD2 export as a Quake II player: the selected objects into one folder as ``tris.md2`` (the body:
every object not named like a weapon), ``weapon.md2`` (objects named ``weapon*``) and ``w_<name>.md2``
(each object named ``w_*``), all sampled with the same options, and quantised on one grid per frame
(:mod:`.player_grid`) so the points they share coincide. The game draws a weapon at the body's frame
number (and its frame 0 where it has no such frame, :mod:`...formats.md2.player`), so frames Blender
samples anew need the body's count; a weapon whose frames are all its own file's (untouched or
edited; real players often ship a 208-frame ``weapon.md2`` beside a 229-frame body) keeps them and
their names, and the report says which body frames it lacks.

Actions named after Quake II's animations are sampled in the game's order (``stand``, ``run``,
... ``death3``, any case), the others after them. Skin names pointing outside the player's folder
are moved into it with their files, and the player's other skins are carried over
(:mod:`.player_skins`); every player skin gets its menu icon ``<skin>_i.pcx`` (:mod:`.player_icons`).

Every model, skin and icon is built and checked before any file is written; then each is written
atomically. The Quake II player conventions (:mod:`..formats.md2.player`) come back as warnings,
with what would give a wrong-length animation its expected frame count (:mod:`.player_counts`).
"""
from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import bpy

from ...formats.atomic_file import atomic_write
from ...formats.md2.codec import parse_md2, serialize_md2
from ...formats.md2.player import (
    BODY_FILE,
    WEAPON_FILE,
    PlayerPart,
    is_weapon_name,
    player_deviations,
    wrong_length_kind,
)
from ...formats.report_lines import Message
from ..export_error import ExportError
from ..image_files import write_skin_files
from ..run_export import ExportReport
from .build import Md2ExportOptions, build_md2
from .player_counts import count_hints
from .player_grid import share_player_grid
from .player_icons import plan_icons
from .player_skins import carried_skins, into_player_folder
from .skins import plan_skin_files, replace_unusable_skins, skin_folder

PLAYER_BODY_FILE = BODY_FILE
PLAYER = "Quake II player: "     # starts each line of the player conventions in the export report
_BLENDER_SUFFIX = re.compile(r"\.\d{3}$")


def player_files(objects: list[bpy.types.Object]) -> dict[str, list[bpy.types.Object]]:
    """File name -> the mesh objects written into it; the body first."""
    files: dict[str, list[bpy.types.Object]] = {BODY_FILE: []}
    for obj in objects:
        if obj.type != "MESH":
            continue
        name = _BLENDER_SUFFIX.sub("", obj.name)
        if not is_weapon_name(name):
            files[BODY_FILE].append(obj)
        elif name.lower().startswith("w_"):
            files.setdefault(f"{name.lower().removesuffix('.md2')}.md2", []).append(obj)
        else:
            files.setdefault(WEAPON_FILE, []).append(obj)
    if not files[BODY_FILE]:
        raise ExportError("a Quake II player needs a body: select a mesh object not named weapon* or w_*")
    return files


def export_md2_player(context: bpy.types.Context, path: Path, objects: list[bpy.types.Object],
                      options: Md2ExportOptions) -> ExportReport:
    """Build every model of the player folder, check their frames agree, then write each model and
    its skins (as :func:`.export.export_md2` does for one model)."""
    folder = path.parent
    # keep_still_frames: the models share one frame list (a still weapon beside a moving body keeps them all)
    options = replace(options, skin_folder=skin_folder(path, options.skin_path), standard_order="PLAYER",
                      keep_still_frames=True)
    wm = context.window_manager
    files = player_files(objects)
    twin_writer = options.enhanced       # Enhanced Model: ..md5.twin.ENHANCED, handed in by the operator
    if twin_writer is not None:
        twin_writer.check(files[BODY_FILE])
    results = {}
    for i, (file_name, members) in enumerate(files.items()):
        results[file_name] = build_md2(context, members, replace(options, model_stem=Path(file_name).stem),
                                       progress=lambda f, i=i: wm.progress_update((i + f) / len(files) * 0.9))
    body = results[BODY_FILE].model
    for file_name, result in results.items():
        model = result.model
        if result.own_frames and file_name != BODY_FILE:
            continue                                   # its own frames and names, whatever their count
        if len(model.frame_names) != len(body.frame_names):
            raise ExportError(f"{file_name} would get {len(model.frame_names)} frames sampled in Blender, "
                              f"{BODY_FILE} {len(body.frame_names)}; Quake II draws a weapon at the body's "
                              "frame, so frames made in Blender need the body's count: give it the body's frame "
                              "range or actions")
        if model.frame_names != body.frame_names:      # the body names the frames it shares with a new weapon
            model.frame_names, model.frame_name_raw = list(body.frame_names), None
    grid_note = share_player_grid(results, options.grid)
    warnings = [w for result in results.values() for w in result.warnings]
    warnings += [note for file_name, result in results.items()
                 for note in replace_unusable_skins(result.model, result.skin_images, options.skin_folder, f"{file_name}: ")]
    moved = into_player_folder(results, options.skin_folder, folder)
    skin_files = []
    twins = []
    for file_name, result in results.items():
        planned, notes = plan_skin_files(folder / file_name, result.model.skins, result.skin_images,
                                         options.skins, options.dither)
        skin_files += planned
        warnings += notes
        if twin_writer is not None and twin_writer.rigged(files[file_name]):
            twins.append(twin_writer.quake2(context, folder / file_name, files[file_name], options, result, planned))
        elif twin_writer is not None:
            warnings.append(f"Enhanced Model: {file_name} has no armature, so no MD5 twin (MD5 is skeletal)")
    for twin in twins:
        skin_files += twin.files
        warnings += twin.warnings
    body_result = results[BODY_FILE]
    player_skins = {name: body_result.skin_images.get(name) for name in body_result.model.skins}
    if options.skin_folder and options.skins != "NAMES":
        carried = carried_skins(files[BODY_FILE], options.skin_folder, list(player_skins))
        planned, notes = plan_skin_files(path, list(carried), carried, options.skins, options.dither)
        skin_files += planned
        warnings += notes
        player_skins.update(carried)
    icon_notes: list[str] = []
    if options.skins == "NAMES" or options.icons == "NONE":
        warnings.append(f"{'Skins: Names Only' if options.skins == 'NAMES' else 'Icons: None'}: no menu icons "
                        "written; Quake II's player menu lists a skin only with its icon <skin>_i.pcx beside it")
    if options.skins != "NAMES":
        icons, icon_notes = plan_icons(path, body_result, [r for n, r in results.items() if n != BODY_FILE],
                                       player_skins, options.icons)
        skin_files += icons
    data = {name: serialize_md2(result.model) for name, result in results.items()}
    for file_name, blob in data.items():
        atomic_write(folder / file_name, blob, verify=parse_md2)
    written = write_skin_files(skin_files)
    parts = {name: PlayerPart(name, list(r.model.frame_names), list(r.model.skins)) for name, r in results.items()}
    deviations = player_deviations(parts[BODY_FILE], [p for n, p in parts.items() if n != BODY_FILE])
    hints = (count_hints(context.scene, list(body.frame_names), options.frame_rate, options.step)
             if options.frame_source == "ACTIONS" else {})
    return ExportReport(warnings + player_lines(deviations, hints), written,
                        [note for result in results.values() for note in result.info]
                        + [note for twin in twins for note in twin.info]
                        + ([grid_note] if grid_note else []) + moved + icon_notes)


def player_lines(deviations: list[str], hints: dict[str, str]) -> list[str]:
    """The deviations as the export's warnings (``Quake II player: ...``), kinds kept; an animation with a
    count hint (why its length is wrong, what fixes it) gets that line instead of the bare count."""
    wrong = wrong_length_kind(BODY_FILE)
    lines = []
    for line in deviations:
        kind = getattr(line, "kind", None)
        if kind == wrong and line.item in hints:
            continue
        text = f"{PLAYER}{line}"
        lines.append(Message(text, PLAYER + kind, line.item) if kind is not None else text)
    return lines + [Message(f"{PLAYER}{hint}", PLAYER + wrong, name) for name, hint in hints.items()]
