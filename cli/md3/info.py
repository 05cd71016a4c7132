"""What ``info`` and ``check`` read of a Quake III MD3 (``IDP3`` version 15), without Blender (its row's
``info`` and ``describe``).

Errors: what the reader refuses (:func:`...formats.md3.codec.read_md3`, with field and byte offset).
Warnings: the reader's own (one line per kind, :func:`...formats.md3.limits.read_warnings`): counts over
ioquake3's ``qfiles.h`` ``MD3_MAX_*`` limits (also listed as limits exceeded: the exporter refuses them),
surfaces renderergl1's ``R_LoadMD3`` refuses (``SHADER_MAX_VERTEXES``, ``SHADER_MAX_INDEXES``: the whole
model then fails to load there), non-finite numbers; and triangles that use a vertex twice.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ...formats.animations import group_animations
from ...formats.md3.codec import read_md3
from ...formats.md3.limits import limit_problems
from ...formats.md3.records import VERSION
from ...formats.shown import quoted
from ..inspect import ModelInfo, degenerate_triangles, note_limit, note_warning


def inspect_md3(info: ModelInfo, path: Path, data: bytes, load_skins: bool, name_encoding: str = "AUTO") -> None:
    model = read_md3(data)
    info.version = VERSION
    surfaces = model.surfaces
    info.counts = {"surfaces": len(surfaces), "tags": model.num_tags, "frames": model.num_frames,
                   "vertices": sum(s.num_verts for s in surfaces),
                   "triangles": sum(len(s.triangles) for s in surfaces),
                   "shaders": sum(len(s.shaders) for s in surfaces)}
    info.details = {"engine": "Quake III", "name": model.name, "tags": list(model.tag_names),
                    "surfaces": [{"name": s.name, "vertices": s.num_verts, "triangles": len(s.triangles),
                                  "shaders": [sh.name for sh in s.shaders]} for s in surfaces]}
    info.animations = group_animations(model.frame_names)
    limits = set(limit_problems(model))
    for warning in model.warnings:
        (note_limit if warning in limits else note_warning)(info, warning)
    degenerate = sum(len(degenerate_triangles(np.asarray(s.triangles).reshape(-1, 3))) for s in surfaces)
    if degenerate:
        note_warning(info, f"{degenerate} triangle(s) use a vertex twice (they draw nothing)")


def describe_lines(info: ModelInfo) -> list[str]:
    """The tags and each surface with its shaders."""
    details = info.details
    lines = [f"  tags: {', '.join(quoted(t) for t in details['tags'])}"] if details["tags"] else []
    lines.append("  surfaces:")
    for surface in details["surfaces"]:
        shaders = ", ".join(quoted(s) for s in surface["shaders"]) or "no shader"
        lines.append(f"    {quoted(surface['name'])}: {surface['vertices']} vertices, {surface['triangles']} "
                     f"triangles, {shaders}")
    return lines
