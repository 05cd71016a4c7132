"""MD2 export as a Quake II player: the selected objects into one folder as ``tris.md2`` (the body:
every object not named like a weapon), ``weapon.md2`` (objects named ``weapon*``) and ``w_<name>.md2``
(each object named ``w_*``), all sampled with the same options so their frame lists are identical.

Every model is built and checked before any file is written; then each is written atomically.
The Quake II player conventions (:mod:`..formats.q2_player`) come back as warnings.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bpy

from ..formats.q2_player import BODY_FILE, WEAPON_FILE, PlayerPart, is_weapon_name, player_deviations
from .atomic_write import atomic_write
from .export_error import ExportError
from .run_export import ModelWriter

PLAYER_BODY_FILE = BODY_FILE
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


@dataclass(frozen=True)
class PlayerWriter:
    """Writes a player folder with ``writer``'s builder, serializer and parser (MD2)."""
    writer: ModelWriter

    def __call__(self, context: bpy.types.Context, path: Path, objects: list[bpy.types.Object],
                 options: Any) -> list[str]:
        folder = path.parent
        wm = context.window_manager
        files = player_files(objects)
        results = {}
        for i, (file_name, members) in enumerate(files.items()):
            results[file_name] = self.writer.build(context, members, options,
                                                   progress=lambda f, i=i: wm.progress_update(
                                                       (i + f) / len(files) * 0.9))
        body = results[BODY_FILE].model
        for file_name, result in results.items():
            model = result.model
            if len(model.frame_names) != len(body.frame_names):
                raise ExportError(f"{file_name} would get {len(model.frame_names)} frames, {BODY_FILE} "
                                  f"{len(body.frame_names)}; a weapon needs the same frames as the body")
            if model.frame_names != body.frame_names:      # the body names the frames for every file
                model.frame_names, model.frame_name_raw = list(body.frame_names), None
        data = {name: self.writer.serialize(result.model) for name, result in results.items()}
        for file_name, blob in data.items():
            atomic_write(folder / file_name, blob, verify=self.writer.parse)
        warnings = [w for result in results.values() for w in result.warnings]
        parts = {name: PlayerPart(name, list(r.model.frame_names), list(r.model.skins)) for name, r in results.items()}
        deviations = player_deviations(parts[BODY_FILE], [p for n, p in parts.items() if n != BODY_FILE])
        return warnings + [f"Quake II player: {line}" for line in deviations]
