"""The import and export operators run as a user runs them (one call each, checked FINISHED)."""
from __future__ import annotations

import sys
from pathlib import Path

from formats.ms3d.codec import parse_ms3d
from formats.ms3d.records import Ms3dModel

from .blender_helpers import datablock_counts


def import_md2(bpy, path: Path, **options):
    assert bpy.ops.import_scene.md2(filepath=str(path), **options) == {"FINISHED"}
    return bpy.context.view_layer.objects.active


def export_md2(bpy, obj, path: Path, **options) -> bytes:
    for other in bpy.context.view_layer.objects:
        other.select_set(False)
    obj.select_set(True)
    path.parent.mkdir(parents=True, exist_ok=True)
    assert bpy.ops.export_scene.md2(filepath=str(path), **options) == {"FINISHED"}
    return path.read_bytes()


def import_mdl(bpy, path, **options):
    assert bpy.ops.import_scene.mdl(filepath=str(path), **options) == {"FINISHED"}
    return bpy.context.view_layer.objects.active


def export_mdl(bpy, obj, path, **options) -> bytes:
    for other in bpy.context.view_layer.objects:
        other.select_set(False)
    obj.select_set(True)
    assert bpy.ops.export_scene.mdl(filepath=str(path), **options) == {"FINISHED"}
    return path.read_bytes()


def import_ms3d(bpy, path: Path, **options):
    assert bpy.ops.import_scene.ms3d(filepath=str(path), **options) == {"FINISHED"}
    return bpy.context.view_layer.objects.active


def export_ms3d(bpy, path: Path, objects=None, **options) -> Ms3dModel:
    for obj in bpy.context.view_layer.objects:
        obj.select_set(objects is None or obj in objects)
    assert bpy.ops.export_scene.ms3d(filepath=str(path), **options) == {"FINISHED"}
    return parse_ms3d(path.read_bytes())


def group_objects(bpy) -> dict[int, object]:
    return {o["ms3d_group"]["index"]: o for o in bpy.context.scene.objects if "ms3d_group" in o}


def counts(bpy) -> dict[str, int]:
    out = datablock_counts(bpy)
    out["armatures"] = len(bpy.data.armatures)
    return out


def entry(name: str, ticked: bool = True) -> dict:
    return {"name": name, "format": "", "size": 0, "problem": "", "ticked": ticked}


def import_members(bpy, archive: Path, names: list[str], **options):
    return bpy.ops.import_scene.game_archive(filepath=str(archive), models=[entry(n) for n in names], **options)


def extension_module(extension: str, name: str):
    return sys.modules[f"{extension}.{name}"]
