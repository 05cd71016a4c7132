"""What ``info`` reads of a Quake MDL (MD16, Hexen II RAPO) and the lines it adds (its row's ``info`` and
``describe``), without Blender: the variant, flags, embedded skins, ``Mod_LoadAliasModel``'s checks,
the palette of the game folder around the file."""
from __future__ import annotations

from pathlib import Path

from ...formats.animations import slot_animations
from ...formats.archives.game_palette import loose_palette
from ...formats.frame_scripts import mdl_animations
from ...formats.mdl import codec as mdl
from ...formats.mdl.skin_fill import corner_fill_note
from ...formats.mdl.variants import ENGINES, IDPO, RAPO, RAPO_EXTRA, VERSIONS, hexen2_flag_names, quake_flag_labels
from ..inspect import (
    ModelInfo,
    SkinInfo,
    degenerate_triangles,
    note_drawable,
    note_limit,
    note_warning,
    skin_section,
    why_none,
)


def _mdl_offsets(model: mdl.MdlModel) -> dict[str, int]:
    """File offsets of the texcoord and triangle blocks (they follow the variable-size skins)."""
    pos = mdl.HEADER.itemsize + (RAPO_EXTRA.itemsize if model.variant == RAPO else 0)
    pixels = model.skin_width * model.skin_height
    for skin in model.skins:
        count = len(skin.images)
        pos += 4 + pixels if skin.intervals is None else 8 + count * (4 + pixels)
    texcoords = pos
    return {"texcoords": texcoords, "triangles": texcoords + len(model.s) * mdl.TEXCOORD.itemsize}


def inspect_mdl(info: ModelInfo, path: Path, data: bytes, load_skins: bool, name_encoding: str = "AUTO") -> None:
    model = mdl.parse_mdl(data)
    info.version = VERSIONS[model.variant]
    groups = [s for s in model.frames if s.intervals is not None]
    info.counts = {"vertices": model.num_vertices, "triangles": len(model.triangles),
                   "frames": len(model.frames), "poses": model.num_poses, "frame_groups": len(groups),
                   "skins": len(model.skins), "skin_images": sum(len(s.images) for s in model.skins)}
    info.details = {"engine": "Hexen II" if model.variant == RAPO else "Quake", "skin_width": model.skin_width, "skin_height": model.skin_height,
                    "flags": model.flags, "synctype": model.synctype,
                    "eye_position": [float(x) for x in model.eye_position],
                    "bounding_radius": float(model.bounding_radius), "size": float(model.size),
                    "trailing_bytes": model.trailing_bytes, "variant": model.variant,
                    "hexen2_flags": hexen2_flag_names(model.flags), "flag_names": quake_flag_labels(model.flags),
                    "palette": loose_palette(path, model.variant == RAPO).name}
    if model.variant == RAPO:
        info.counts["texcoords"] = len(model.s)
    if model.variant != IDPO:
        note_warning(info, f"{model.variant} variant: {ENGINES[model.variant]} load it", "ident", 0)
    info.animations = slot_animations(model)
    info.frame_table = mdl_animations(model)
    for i, skin in enumerate(model.skins):
        kind = "single" if skin.intervals is None else f"group of {len(skin.images)}"
        info.skins.append(SkinInfo(f"skin {i}", True, None,
                                   f"embedded {kind}, {model.skin_width}x{model.skin_height} paletted"))
    for warning in model.warnings():
        note_limit(info, warning)
    degenerate = degenerate_triangles(model.triangles)
    if len(degenerate):
        note_warning(info, f"dropped {len(degenerate)} degenerate triangle(s) that use a vertex twice",
              f"triangle {int(degenerate[0])}",
              _mdl_offsets(model)["triangles"] + int(degenerate[0]) * mdl.TRIANGLE.itemsize)
    for line in corner_fill_note(model):
        note_warning(info, line, "skins", mdl.HEADER.itemsize)
    total = len(model.triangles)
    note_drawable(info, total - len(degenerate), why_none(total), "numtris", mdl.HEADER.fields["numtris"][1])



def describe_lines(info: ModelInfo) -> list[str]:
    """The variant, flags and palette lines of ``info``, then the skins."""
    details = info.details
    hexen2 = details["hexen2_flags"]
    lines = [f"  variant {details['variant']} ({ENGINES[details['variant']]})"
             + (f"; Hexen II flags: {', '.join(hexen2)}" if hexen2 else "")]
    named = details["flag_names"]
    lines.append(f"  flags {details['flags']}" + (f" ({', '.join(named)})" if named else "")
                 + f", synctype {details['synctype']}, "
                 f"eye position {tuple(round(x, 3) for x in details['eye_position'])}"
                 + (f", {details['trailing_bytes']} trailing bytes ignored" if details["trailing_bytes"] else ""))
    if details.get("palette"):
        lines.append(f"  skins in {details['palette']}")
    return lines + skin_section(info)

