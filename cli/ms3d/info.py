"""What ``info`` reads of a MilkShape 3D MS3D and the lines it adds (its row's ``info`` and ``describe``),
without Blender: groups, materials and the textures they name (looked up as the import does), joints
and their keys, the animation's rate."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ...formats.animations import Animation
from ...formats.archives.skin_lookup import describe_texture_search, find_texture, texture_candidates
from ...formats.errors import FormatError
from ...formats.images.pcx import decode_pcx
from ...formats.message_text import quoted
from ...formats.ms3d import records as ms3d
from ...formats.ms3d.codec import parse_ms3d
from ...formats.ms3d.joints import joint_parents, last_frame
from ...formats.ms3d.text import NAME_ENCODINGS
from ..inspect import ModelInfo, SkinInfo, degenerate_triangles, note_drawable, note_warning, skin_section, why_none

MS3D_DEFAULT_FPS = 24.0          # what the MS3D importer plays a file without a usable rate at


def _ms3d_offsets(model: ms3d.Ms3dModel) -> dict[str, int]:
    """File offsets of the triangle and material blocks and of the animation fields."""
    triangles = ms3d.HEADER.itemsize + 2 + model.num_vertices * ms3d.VERTEX.itemsize + 2
    pos = triangles + model.num_triangles * ms3d.TRIANGLE.itemsize + 2
    for group in model.groups:
        pos += ms3d.GROUP_HEADER.itemsize + 2 * len(group.triangles) + 1
    materials = pos + 2
    return {"triangles": triangles, "materials": materials,
            "animation_fps": materials + len(model.materials) * ms3d.MATERIAL.itemsize}


def inspect_ms3d(info: ModelInfo, path: Path, data: bytes, load_skins: bool, name_encoding: str = "AUTO") -> None:
    model = parse_ms3d(data, NAME_ENCODINGS[name_encoding])
    at = _ms3d_offsets(model)
    info.version = model.version
    info.counts = {"vertices": model.num_vertices, "triangles": model.num_triangles,
                   "groups": len(model.groups), "materials": len(model.materials), "joints": len(model.joints),
                   "frames": int(model.total_frames)}
    stored_fps = float(model.animation_fps)
    fps = stored_fps if math.isfinite(stored_fps) and stored_fps > 0 else MS3D_DEFAULT_FPS
    info.details = {"animation_fps": stored_fps, "total_frames": int(model.total_frames),
                    "groups": [{"name": g.name, "triangles": len(g.triangles), "material": g.material}
                               for g in model.groups],
                    "optional_blocks": [name for name, _ in model.optional_blocks()]}
    key_times = [keys[:, 0] for j in model.joints for keys in (j.rot_keys, j.pos_keys) if len(keys)]
    if key_times:
        times = np.concatenate(key_times)
        info.details["key_seconds"] = [float(times.min()), float(times.max())]
    if model.joints:
        info.animations = [Animation("timeline", 1, last_frame(model, fps))]
    info.joints = [{"name": j.name, "parent": j.parent, "rotation_keys": len(j.rot_keys),
                    "position_keys": len(j.pos_keys)} for j in model.joints]
    for warning in model.warnings:
        note_warning(info, warning)
    if model.joints and fps != model.animation_fps:
        note_warning(info, f"animation fps is {model.animation_fps}: using {MS3D_DEFAULT_FPS:g}", "animation_fps",
              at["animation_fps"])
    for warning in joint_parents(model)[1]:
        note_warning(info, warning, "joints")
    grouped = drawable = 0
    for g, group in enumerate(model.groups):
        triangles = np.asarray(group.triangles, dtype=np.int64)
        degenerate = degenerate_triangles(model.tri_vertices[triangles]) if len(triangles) else []
        grouped += len(triangles)
        drawable += len(triangles) - len(degenerate)
        if len(degenerate):
            first = int(triangles[degenerate[0]])
            note_warning(info, f"group {quoted(group.name)}: dropped {len(degenerate)} triangle(s) that use a vertex twice",
                  f"triangle {first}", at["triangles"] + first * ms3d.TRIANGLE.itemsize)
    why = (why_none(grouped) if grouped or not model.num_triangles
           else f"none of the {model.num_triangles} triangle(s) is in a group")
    note_drawable(info, drawable, why, "num_triangles", at["triangles"] - 2)
    for i, material in enumerate(model.materials):
        base = at["materials"] + i * ms3d.MATERIAL.itemsize
        for key, stored in (("texture", material.texture), ("alphamap", material.alphamap)):
            if not stored.strip():
                continue
            field, offset = f"material {i} {key}", base + ms3d.MATERIAL.fields[key][1]
            if not load_skins:
                info.skins.append(SkinInfo(stored, False, None, "not looked up"))
                continue
            found = find_texture(path.parent, stored)
            search = describe_texture_search(path.parent, stored)
            fallback = len(texture_candidates(stored)) > 1 or search.startswith("absolute")
            info.skins.append(SkinInfo(stored, found is not None, str(found) if found else None,
                                       search if fallback or found is None else None))
            if found is None:
                note_warning(info, f"material {quoted(material.name)}: {key} {quoted(stored)} not found: {search}", field, offset)
            elif found.suffix.lower() == ".pcx":
                try:
                    decode_pcx(found.read_bytes())
                except (FormatError, OSError) as exc:
                    info.skins[-1].note = f"cannot be decoded: {exc}"
                    note_warning(info, f"material {quoted(material.name)}: {key} {quoted(stored)} could not be loaded: {exc}",
                          field, offset)


def describe_lines(info: ModelInfo) -> list[str]:
    """The animation and group lines of ``info``, then the textures (a missing one with where it was looked for)."""
    details = info.details
    lines = [f"  animation {details['total_frames']} frames at {details['animation_fps']:g} fps"
             + (", keys from {:.3g} s to {:.3g} s".format(*details["key_seconds"])
                if "key_seconds" in details else ", no keys")]
    if details["groups"]:
        lines.append("  groups:")
    for group in details["groups"]:
        material = "no material" if group["material"] < 0 else f"material {group['material']}"
        lines.append(f"    {quoted(group['name'])}: {group['triangles']} triangles, {material}")
    return lines + skin_section(info, "textures", missing_notes=True)
