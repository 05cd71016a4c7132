"""``info`` and ``check``: what a model file holds and what is wrong with it, without Blender.

Everything here reads the files with the bpy-free codecs (``formats``) and the skin lookup the
importers use (``formats.archives.skin_lookup``), so it runs in any Python with numpy. A file gives one
:class:`ModelInfo`; its ``problems`` are what ``check`` reports:

- errors: what the importer refuses (the codec's :class:`FormatError`, with field and byte offset);
- warnings: what the importer warns about (degenerate triangles it drops, skins it cannot find or
  decode, the codec's own warnings) and what the original engine would refuse although the file
  imports (``limits_exceeded``: counts over MD2's qfiles.h limits, Quake's ``Mod_LoadAliasModel``
  checks, normal indices outside the 162-entry table, malformed MD2 GL commands).

Animations are grouped by the same bpy-free code the importers use (``formats.animations``).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ..formats.md2 import codec as md2
from ..formats.mdl import codec as mdl
from ..formats.ms3d import records as ms3d
from ..formats.ms3d.codec import parse_ms3d
from ..formats.ms3d.text import NAME_ENCODINGS
from ..formats.mdl.variants import ENGINES, IDPO, RAPO, RAPO_EXTRA, VERSIONS, hexen2_flag_names, quake_flag_labels
from ..formats.animations import Animation, group_animations, slot_animations
from ..formats.frame_scripts import ScriptAnimation, md2_animations, mdl_animations
from ..common.disk_names import readable_text
from ..formats.errors import FormatError
from ..formats.md2.glcmds import decode_glcmds
from ..formats.images.pcx import decode_pcx
from ..formats.ms3d.joints import joint_parents, last_frame
from ..formats.images.palette import quake2_palette
from ..formats.archives.archive import ArchiveError
from ..formats.magics import known_format
from ..formats.archives.game_folder import GameFolder
from ..formats.archives.game_palette import loose_palette
from ..formats.images.skin_limits import MD2_HEADER, QUAKE2_PCX
from ..formats.archives.skin_lookup import (describe_texture_search, find_own_skins, find_sized_skin, find_skin,
                                            find_texture, stored_path_candidates, texture_candidates, unsafe_skin_name)
from ..formats.shown import quoted
from ..formats import table
NUM_NORMALS = 162
SHOWN_INSTEAD = "the import shows"  # note of a missing MD2 skin whose model's own image is shown
MS3D_DEFAULT_FPS = 24.0          # what the MS3D importer plays a file without a usable rate at


@dataclass
class Problem:
    """One finding: ``field`` and ``offset`` (bytes from the start of the file) when known."""
    severity: str                  # "error" or "warning"
    message: str
    field: str | None = None
    offset: int | None = None


@dataclass
class SkinInfo:
    """A skin (MD2), texture (MS3D) or embedded skin slot (MDL) and whether its image is there."""
    name: str
    found: bool
    path: str | None = None
    note: str | None = None


@dataclass
class ModelInfo:
    file: str
    format: str | None
    size: int | None = None
    version: int | None = None
    counts: dict[str, int] = field(default_factory=dict)
    details: dict[str, object] = field(default_factory=dict)
    skins: list[SkinInfo] = field(default_factory=list)
    animations: list[Animation] = field(default_factory=list)
    frame_table: list[ScriptAnimation] = field(default_factory=list)   # MD2/MDL: frames by animation
    joints: list[dict[str, object]] = field(default_factory=list)
    limits_exceeded: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def readable(self) -> bool:
        return not any(p.severity == "error" for p in self.problems)

    def to_json(self, frames: bool = False) -> dict[str, object]:
        """``frames``: keep the frame table (every frame's name, by animation)."""
        out = asdict(self)
        if not frames:
            del out["frame_table"]
        for anim, item in zip(self.animations, out["animations"]):
            item["frames"] = anim.frames
        out["readable"] = self.readable
        return out


def model_format(path: Path | str) -> str | None:
    """The table's key (``md2``) of a file or archive member name, by its extension."""
    row = table.row_for_name(str(path))
    return row.key if row is not None else None


def model_suffixes() -> str:
    """``.md2, .mdl, .ms3d``: the extensions of the table's formats, for messages."""
    return ", ".join(table.model_extensions())


def inspect_file(path: Path, load_skins: bool = True, name_encoding: str = "AUTO") -> ModelInfo:
    """Read ``path`` and describe it; never raises for a bad file (the error becomes a problem).
    ``name_encoding`` (a key of ``NAME_ENCODINGS``): the code page of MS3D names."""
    info = ModelInfo(file=str(path), format=model_format(path))
    if info.format is None:
        try:
            with open(path, "rb") as stream:
                what = known_format(stream.read(16))
        except OSError:
            what = None
        info.problems.append(Problem("error", f"unknown extension {quoted(path.suffix)}; expected "
                                              + model_suffixes() + (f" (this is {what})" if what else "")))
        return info
    try:
        data = path.read_bytes()
    except OSError as exc:
        info.problems.append(Problem("error", f"cannot read: {exc.strerror or exc}"))
        return info
    info.size = len(data)
    reader = table.resolve(table.row(info.format).info)
    try:
        reader(info, path, data, load_skins, name_encoding)
    except FormatError as exc:
        info.problems.append(Problem("error", exc.message, exc.field, exc.offset))
    except MemoryError:
        info.problems.append(Problem("error", "not enough memory to read the file"))
    return info


def _degenerate(triangles: np.ndarray) -> np.ndarray:
    """Indices of triangles that use a vertex twice (the importers drop them)."""
    t = np.asarray(triangles)
    if not len(t):
        return np.zeros(0, np.int64)
    return np.flatnonzero((t[:, 0] == t[:, 1]) | (t[:, 1] == t[:, 2]) | (t[:, 0] == t[:, 2]))


def _warn(info: ModelInfo, message: str, field: str | None = None, offset: int | None = None) -> None:
    info.problems.append(Problem("warning", message, field, offset))


def _drawable(info: ModelInfo, drawable: int, why: str, field: str, offset: int) -> None:
    """Record how many triangles the import draws; none is a warning (the model converts to nothing)."""
    info.details["drawable_triangles"] = drawable
    if drawable == 0:
        _warn(info, f"no drawable triangles: {why}", field, offset)


def _limit(info: ModelInfo, message: str, field: str | None = None, offset: int | None = None) -> None:
    info.limits_exceeded.append(message)
    _warn(info, message, field, offset)


def _lookup_skin(info: ModelInfo, path: Path, name: str, field: str, offset: int) -> None:
    lookup = find_skin(path, name)
    skin = SkinInfo(name, lookup.path is not None, str(lookup.path) if lookup.path else None, lookup.warning)
    if lookup.warning:
        _warn(info, lookup.warning, field, offset)
    if lookup.path is not None and lookup.path.suffix.lower() == ".pcx":
        try:
            image = decode_pcx(lookup.path.read_bytes())
        except (FormatError, OSError) as exc:
            skin.note = f"cannot be decoded: {exc}"
            _warn(info, f"skin {quoted(name)} could not be loaded: {exc}", field, offset)
        else:
            skin.note = skin.note or f"PCX {image.width}x{image.height}"
            for problem in QUAKE2_PCX.problems(image.width, image.height, f"skin {quoted(name)}"):
                _limit(info, f"{problem}: Quake II does not load this PCX (LoadPCX: at most 640x480; "
                             "GL_Upload8: at most 512*256 pixels)", field, offset)
    info.skins.append(skin)


def _game_skin(path: Path, name: str) -> SkinInfo | None:
    """A skin not on disk, found in the archives of the game folder the loose model sits in (or of its
    base folder), as the import finds it (``importers.file_source.LooseSource.skin``)."""
    if unsafe_skin_name(name.strip()) is not None:
        return None
    try:
        game = GameFolder.around(path)
    except (FormatError, OSError):
        return None
    if game is None:
        return None
    with game:
        for candidate in stored_path_candidates(name):
            found = game.find(candidate)
            if found is None or found.archive is None:
                continue
            skin = SkinInfo(name, True, f"{found.archive}:{found.name}", f"found in {found.archive.name}")
            if found.name.lower().endswith(".pcx"):
                try:
                    image = decode_pcx(game.read(found.name))
                    skin.note += f"; PCX {image.width}x{image.height}"
                except (FormatError, ArchiveError) as exc:
                    skin.note = f"cannot be decoded: {exc}"
            return skin
    return None


def inspect_md2(info: ModelInfo, path: Path, data: bytes, load_skins: bool, name_encoding: str = "AUTO") -> None:
    model = md2.parse_md2(data)
    header = np.frombuffer(data, md2.HEADER, count=1)[0]
    at = {name: md2.HEADER.fields[name][1] for name in md2.HEADER.names}
    info.version = md2.VERSION
    info.counts = {"vertices": model.num_vertices, "triangles": len(model.tri_xyz),
                   "frames": model.num_frames, "skins": len(model.skins), "texcoords": len(model.st),
                   "glcmds": len(model.glcmds)}
    info.details = {"engine": "Quake II", "skin_width": model.skin_width, "skin_height": model.skin_height}
    info.animations = group_animations(model.frame_names)
    info.frame_table = md2_animations(model.frame_names)

    limits = md2.LIMITS
    for what, count, limit, name in (
            ("vertices", model.num_vertices, limits.vertices, "num_xyz"),
            ("triangles", len(model.tri_xyz), limits.triangles, "num_tris"),
            ("frames", model.num_frames, limits.frames, "num_frames"),
            ("skins", len(model.skins), limits.skins, "num_skins")):
        if count > limit:
            _limit(info, f"{count} {what} exceed Quake II's {limit}", name, at[name])
    for problem in MD2_HEADER.problems(model.skin_width, model.skin_height, "skin"):
        _limit(info, f"{problem}: Quake II refuses the model (Mod_LoadAliasModel, MAX_LBM_HEIGHT)", "skinheight",
               at["skinheight"])
    framesize = int(header["framesize"])
    bad = np.argwhere(model.frame_normals >= NUM_NORMALS)
    if len(bad):
        f, v = (int(x) for x in bad[0])
        _limit(info, f"normal index {int(model.frame_normals[f, v])} is outside the {NUM_NORMALS}-entry "
                     f"table ({len(bad)} vertices)", f"frame {f} vertex {v} normal_index",
               int(header["ofs_frames"]) + f * framesize + md2.FRAME_HEADER.itemsize + 4 * v + 3)
    try:
        decode_glcmds(model.glcmds, model.num_vertices)
    except FormatError as exc:
        offset = None if exc.offset is None else int(header["ofs_glcmds"]) + exc.offset
        _limit(info, f"GL commands are malformed (Quake II draws with them): {exc.message}", "glcmds", offset)

    degenerate = _degenerate(model.tri_xyz)
    if len(degenerate):
        _warn(info, f"dropped {len(degenerate)} degenerate triangle(s) that use a vertex twice",
              f"triangle {int(degenerate[0])}", int(header["ofs_tris"]) + int(degenerate[0]) * md2.TRIANGLE.itemsize)
    total = len(model.tri_xyz)
    _drawable(info, total - len(degenerate), _why_none(total), "num_tris", at["num_tris"])
    _md2_skins(info, path, model, int(header["ofs_skins"]), load_skins)


def _md2_skins(info: ModelInfo, path: Path, model: md2.Md2Model, ofs_skins: int, load_skins: bool) -> None:
    """Each stored skin and where it is; when none is found, the images the import shows instead
    (:func:`find_own_skins`, then :func:`find_sized_skin`), as the import reports them (a missing name is then no warning)."""
    first = {}
    for i, name in enumerate(model.skins):
        first.setdefault(name, i)
    if not load_skins:
        info.skins += [SkinInfo(name, False, None, "not looked up") for name in first]
        return
    lookups = {name: find_skin(path, name) for name in first}
    packed = {name: _game_skin(path, name) for name, lookup in lookups.items() if lookup.path is None}
    own = None if any(l.path is not None for l in lookups.values()) or any(packed.values()) else (
        find_own_skins(path) or find_sized_skin(path, model.skin_width, model.skin_height))
    for name, i in first.items():
        if packed.get(name) is not None:
            info.skins.append(packed[name])
        elif own is None:
            _lookup_skin(info, path, name, f"skin {i}", ofs_skins + i * md2.SKIN.itemsize)
        else:
            info.skins.append(SkinInfo(name, False, None, f"{SHOWN_INSTEAD} {own.paths[0].name} instead"))
    for image in own.paths if own else []:
        info.skins.append(SkinInfo(f"{image.name} (not named by the file)", True, str(image),
                                   f"{own.reason}; " + _image_note(image)))
    for skin in info.skins:
        if skin.found and skin.path and skin.path.lower().endswith(".pcx") and "differ" not in (skin.note or ""):
            skin.note = _image_note(Path(skin.path)) if skin.note and skin.note.startswith("PCX") else skin.note


def _image_note(image: Path) -> str:
    """``PCX WxH`` and, for an 8-bit PCX, how far the palette its pixels use is from Quake II's
    (the game draws 8-bit skins through its own palette; docs/dev/format-facts.md, "MD2")."""
    if image.suffix.lower() != ".pcx":
        return image.suffix.lstrip(".").upper() or "image"
    try:
        pcx = decode_pcx(image.read_bytes())
    except (FormatError, OSError) as exc:
        return f"cannot be decoded: {exc}"
    if pcx.indices is None:
        return f"PCX {pcx.width}x{pcx.height}, 24-bit"
    used = np.unique(pcx.indices)
    delta = np.abs(pcx.palette[used].astype(np.int64) - quake2_palette()[used].astype(np.int64)).max(axis=1)
    differ = int((delta > 0).sum())
    if not differ:
        return f"PCX {pcx.width}x{pcx.height}, 8-bit, its {len(used)} palette entries in use match Quake II's"
    return (f"PCX {pcx.width}x{pcx.height}, 8-bit, {differ} of the {len(used)} palette entries in use differ "
            f"from Quake II's by up to {int(delta.max())} of 255: the game shows other colours")


def skin_lines(info: ModelInfo) -> list[str]:
    """One line per MD2 skin for ``check``: where it was found (and by which rule), or missing."""
    if info.format != "md2":
        return []
    return [f"skin {s.name}: " + (f"found {readable_text(s.path)} ({s.note})" if s.found else f"MISSING ({s.note or 'see warnings'})")
            for s in info.skins]


def _why_none(total: int) -> str:
    return f"all {total} triangle(s) use a vertex twice" if total else "the model has no triangles"


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
        _warn(info, f"{model.variant} variant: {ENGINES[model.variant]} load it", "ident", 0)
    info.animations = slot_animations(model)
    info.frame_table = mdl_animations(model)
    for i, skin in enumerate(model.skins):
        kind = "single" if skin.intervals is None else f"group of {len(skin.images)}"
        info.skins.append(SkinInfo(f"skin {i}", True, None,
                                   f"embedded {kind}, {model.skin_width}x{model.skin_height} paletted"))
    for warning in model.warnings():
        _limit(info, warning)
    degenerate = _degenerate(model.triangles)
    if len(degenerate):
        _warn(info, f"dropped {len(degenerate)} degenerate triangle(s) that use a vertex twice",
              f"triangle {int(degenerate[0])}",
              _mdl_offsets(model)["triangles"] + int(degenerate[0]) * mdl.TRIANGLE.itemsize)
    total = len(model.triangles)
    _drawable(info, total - len(degenerate), _why_none(total), "numtris", mdl.HEADER.fields["numtris"][1])


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
        _warn(info, warning)
    if model.joints and fps != model.animation_fps:
        _warn(info, f"animation fps is {model.animation_fps}: using {MS3D_DEFAULT_FPS:g}", "animation_fps",
              at["animation_fps"])
    for warning in joint_parents(model)[1]:
        _warn(info, warning, "joints")
    grouped = drawable = 0
    for g, group in enumerate(model.groups):
        triangles = np.asarray(group.triangles, dtype=np.int64)
        degenerate = _degenerate(model.tri_vertices[triangles]) if len(triangles) else []
        grouped += len(triangles)
        drawable += len(triangles) - len(degenerate)
        if len(degenerate):
            first = int(triangles[degenerate[0]])
            _warn(info, f"group {quoted(group.name)}: dropped {len(degenerate)} triangle(s) that use a vertex twice",
                  f"triangle {first}", at["triangles"] + first * ms3d.TRIANGLE.itemsize)
    why = (_why_none(grouped) if grouped or not model.num_triangles
           else f"none of the {model.num_triangles} triangle(s) is in a group")
    _drawable(info, drawable, why, "num_triangles", at["triangles"] - 2)
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
                _warn(info, f"material {quoted(material.name)}: {key} {quoted(stored)} not found: {search}", field, offset)
            elif found.suffix.lower() == ".pcx":
                try:
                    decode_pcx(found.read_bytes())
                except (FormatError, OSError) as exc:
                    info.skins[-1].note = f"cannot be decoded: {exc}"
                    _warn(info, f"material {quoted(material.name)}: {key} {quoted(stored)} could not be loaded: {exc}",
                          field, offset)


def describe(info: ModelInfo, verbose: bool = False) -> str:
    """The human-readable ``info`` block for one file."""
    if info.format is None or info.size is None or not info.readable:
        lines = [f"{info.file}: cannot be read"]
        lines += [f"  {format_problem(p)}" for p in info.problems if p.severity == "error"]
        return "\n".join(lines)
    lines = [f"{info.file}: {table.row(info.format).title} version {info.version}, {info.size} bytes"]
    lines.append("  " + ", ".join(f"{name.replace('_', ' ')} {count}" for name, count in info.counts.items()))
    details = info.details
    lines += [f"  {line}" for line in details.get("summary", [])]     # a format's own lines (MD5)
    if "skin_width" in details:
        lines.append(f"  skin size {details['skin_width']}x{details['skin_height']}")
    if info.format == "mdl":
        hexen2 = details["hexen2_flags"]
        lines.append(f"  variant {details['variant']} ({ENGINES[details['variant']]})"
                     + (f"; Hexen II flags: {', '.join(hexen2)}" if hexen2 else ""))
        named = details["flag_names"]
        lines.append(f"  flags {details['flags']}" + (f" ({', '.join(named)})" if named else "")
                     + f", synctype {details['synctype']}, "
                     f"eye position {tuple(round(x, 3) for x in details['eye_position'])}"
                     + (f", {details['trailing_bytes']} trailing bytes ignored" if details["trailing_bytes"] else ""))
        if details.get("palette"):
            lines.append(f"  skins in {details['palette']}")
    if info.format == "ms3d":
        lines.append(f"  animation {details['total_frames']} frames at {details['animation_fps']:g} fps"
                     + (", keys from {:.3g} s to {:.3g} s".format(*details["key_seconds"])
                        if "key_seconds" in details else ", no keys"))
        if details["groups"]:
            lines.append("  groups:")
        for group in details["groups"]:
            material = "no material" if group["material"] < 0 else f"material {group['material']}"
            lines.append(f"    {quoted(group['name'])}: {group['triangles']} triangles, {material}")
    if info.skins:
        lines.append("  skins:" if info.format != "ms3d" else "  textures:")
        for skin in info.skins:
            if skin.found and skin.path:
                state = f"found {skin.path}" + (f" ({skin.note})" if skin.note else "")
            elif skin.found:
                state = skin.note or "present"
            else:
                state = ("not looked up" if skin.note == "not looked up" else
                         f"MISSING: {skin.note}" if info.format == "ms3d" and skin.note
                         else f"MISSING ({skin.note})" if (skin.note or "").startswith(SHOWN_INSTEAD)
                         else "MISSING (see warnings)")
            lines.append(f"    {skin.name}: {state}")
    if info.animations:
        lines.append(f"  animations ({len(info.animations)}):")
        width = max(len(a.name) for a in info.animations)
        for anim in info.animations:
            lines.append(f"    {anim.name:<{width}}  frames {anim.first}-{anim.last} ({anim.frames})")
    if info.joints:
        names = [str(j["name"]) for j in info.joints]
        shown = names if verbose or len(names) <= 12 else names[:12] + [f"... {len(names) - 12} more (-v)"]
        lines.append(f"  joints ({len(names)}): " + ", ".join(shown))
    engine = details.get("engine")
    if engine:
        if info.limits_exceeded:
            lines.append(f"  exceeds {engine}'s limits:")
            lines += [f"    {text}" for text in info.limits_exceeded]
        else:
            lines.append(f"  within {engine}'s limits")
    others = [p for p in info.problems if p.message not in info.limits_exceeded]
    if others:
        lines.append("  warnings:")
        lines += [f"    {format_problem(p, severity=False)}" for p in others]
    return readable_text("\n".join(lines))


def format_problem(problem: Problem, severity: bool = True) -> str:
    """``severity: field @ offset N: message`` (the parts that are known)."""
    where = problem.field or ""
    if problem.offset is not None:
        where = f"{where} @ offset {problem.offset}" if where else f"offset {problem.offset}"
    text = f"{where}: {problem.message}" if where else problem.message
    return f"{problem.severity}: {text}" if severity else text
