"""Showing another skin set of an imported MD3 (the sidebar's *Skin Set* buttons).

The sets are the ``.skin`` files the import found beside the model, kept on the model root
(``md3_skins``, :mod:`.md3_skins`); the images are looked up again where the model was read from (the
loose file, or the archive member and its game folder), by the game's rules. An empty set name
shows the shaders the file itself names. A material already made for a shader is reused.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

import bpy

from ...common.contract import ARCHIVE_MEMBER, ARCHIVE_PATH, SOURCE_FILE
from ...common.generated_names import is_made
from ...common.md3.contract import MD3_SHADER, MD3_SKIN_SET, MD3_SKIN_SHADER, MD3_SKINS, MD3_SURFACE_INDEX
from ...common.md3.surfaces import SurfaceRecords, mesh_surfaces
from ...formats.archives.archive import ArchiveError, open_archive
from ...formats.archives.game_folder import GameFolder
from ...formats.binary import decode_name
from ...formats.md3.records import SHADER
from ...formats.md3.skin_file import parse_skin
from ...formats.message_text import quoted
from ..file_source import ArchiveSource, LooseSource
from ..results import ImportResult
from .md3_skins import ShaderImages


def model_root(obj: bpy.types.Object | None) -> bpy.types.Object | None:
    """The MD3 model root ``obj`` is or belongs to (a surface or tag is its child)."""
    while obj is not None and MD3_SKINS not in obj:
        obj = obj.parent
    return obj


def skin_set_names(root: bpy.types.Object) -> list[str]:
    try:
        return sorted(json.loads(root[MD3_SKINS]))
    except (KeyError, ValueError, TypeError):
        return []


def _surface_name(records: SurfaceRecords) -> str:
    """The surface's name as its file record holds it (the object may have been renamed)."""
    return decode_name(records.record["name"].tobytes())


def _file_shader(records: SurfaceRecords) -> str:
    """The surface's first shader name in the file ('' for none)."""
    raw = records.shaders or b""
    if len(raw) < SHADER.itemsize:
        return ""
    return decode_name(np.frombuffer(raw, SHADER, count=1)[0]["name"].tobytes())


def show_skin_set(root: bpy.types.Object, set_name: str) -> ImportResult:
    """Give the root's surfaces the shaders of skin set ``set_name`` ('' = the file's own); the
    result's warnings say what was not found."""
    result = ImportResult()
    shaders = None
    if set_name:
        sets = json.loads(root[MD3_SKINS])
        shaders = parse_skin(bytes.fromhex(sets[set_name]["raw"]))
    archive = None
    if ARCHIVE_PATH in root:
        try:
            archive = open_archive(Path(root[ARCHIVE_PATH]))
        except ArchiveError as exc:
            result.warnings.append(f"{root.name}: {exc}")
            return result
        game = GameFolder.around(Path(root[ARCHIVE_PATH]))
        source = ArchiveSource(archive, root[ARCHIVE_MEMBER], game)
    else:
        source = LooseSource(Path(root.get(SOURCE_FILE, root.name)))
    images = ShaderImages(source)
    try:
        surfaces = [(obj, records) for obj in root.children if MD3_SURFACE_INDEX in obj
                    for records in mesh_surfaces(obj.data)]             # a merged mesh: a slot per surface
        for obj, records in sorted(surfaces, key=lambda pair: (pair[0][MD3_SURFACE_INDEX], pair[1].index)):
            surface_name = _surface_name(records)
            shader = _file_shader(records)
            shown = None if shaders is None else shaders.shader_for(surface_name) or ""
            material = next((m for m in bpy.data.materials if is_made(m) and (shown or shader)
                             and m.get(MD3_SHADER) == shader and m.get(MD3_SKIN_SHADER) == shown), None)
            if material is None:
                material = images.material(shader, surface_name, source.label, result.warnings, result.infos, shown)
            slots = obj.data.materials
            while len(slots) <= records.index:
                slots.append(None)
            slots[records.index] = material
    finally:
        images.close()
        if archive is not None:
            archive.close()
    root[MD3_SKIN_SET] = set_name
    return result


class CLASSIC_MODELS_OT_md3_skin_set(bpy.types.Operator):
    """Show this skin set (.skin file) on the MD3 model"""
    bl_idname = "classic_models.md3_skin_set"
    bl_label = "Show Skin Set"
    bl_options = {"REGISTER", "UNDO"}

    set_name: bpy.props.StringProperty(name="Skin Set", description="The set to show; empty: the file's shaders")

    @classmethod
    def poll(cls, context):
        return model_root(context.object) is not None

    def execute(self, context):
        root = model_root(context.object)
        if self.set_name and self.set_name not in skin_set_names(root):
            self.report({"ERROR"}, f"{root.name} has no skin set {quoted(self.set_name)}")
            return {"CANCELLED"}
        result = show_skin_set(root, self.set_name)
        for warning in result.warnings:
            self.report({"WARNING"}, str(warning))
        return {"FINISHED"}
