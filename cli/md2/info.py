"""What ``info`` and ``check`` read of a Quake II MD2 (its row's ``info`` and ``check``), without Blender:
counts over qfiles.h's limits, normal indices outside the 162-entry table, malformed GL commands, the
skin size Quake II refuses, and each stored skin: found beside the model, at its game path or in the
game folder's archives, else the images the import shows instead (``formats.archives.skin_lookup``).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ...common.disk_names import readable_text
from ...formats.animations import group_animations
from ...formats.archives.archive import ArchiveError
from ...formats.archives.game_folder import GameFolder
from ...formats.archives.skin_lookup import (
    find_own_skins,
    find_sized_skin,
    find_skin,
    stored_path_candidates,
    unsafe_skin_name,
)
from ...formats.errors import FormatError
from ...formats.frame_scripts import md2_animations
from ...formats.images.palette import quake2_palette
from ...formats.images.pcx import decode_pcx
from ...formats.images.skin_limits import MD2_HEADER, QUAKE2_PCX
from ...formats.md2 import codec as md2
from ...formats.md2.glcmds import decode_glcmds
from ...formats.md2.skin_fill import corner_fill_note
from ...formats.message_text import quoted
from ..inspect import (
    SHOWN_INSTEAD,
    ModelInfo,
    SkinInfo,
    degenerate_triangles,
    note_drawable,
    note_limit,
    note_warning,
    why_none,
)

NUM_NORMALS = 162


def _lookup_skin(info: ModelInfo, path: Path, name: str, field: str, offset: int) -> None:
    lookup = find_skin(path, name)
    skin = SkinInfo(name, lookup.path is not None, str(lookup.path) if lookup.path else None, lookup.warning)
    if lookup.warning:
        note_warning(info, lookup.warning, field, offset)
    if lookup.path is not None and lookup.path.suffix.lower() == ".pcx":
        try:
            image = decode_pcx(lookup.path.read_bytes())
        except (FormatError, OSError) as exc:
            skin.note = f"cannot be decoded: {exc}"
            note_warning(info, f"skin {quoted(name)} could not be loaded: {exc}", field, offset)
        else:
            skin.note = skin.note or f"PCX {image.width}x{image.height}"
            for problem in QUAKE2_PCX.problems(image.width, image.height, f"skin {quoted(name)}"):
                note_limit(info, f"{problem}: Quake II does not load this PCX (LoadPCX: at most 640x480; "
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
            note_limit(info, f"{count} {what} exceed Quake II's {limit}", name, at[name])
    for problem in MD2_HEADER.problems(model.skin_width, model.skin_height, "skin"):
        note_limit(info, f"{problem}: Quake II refuses the model (Mod_LoadAliasModel, MAX_LBM_HEIGHT)", "skinheight",
               at["skinheight"])
    framesize = int(header["framesize"])
    bad = np.argwhere(model.frame_normals >= NUM_NORMALS)
    if len(bad):
        f, v = (int(x) for x in bad[0])
        note_limit(info, f"normal index {int(model.frame_normals[f, v])} is outside the {NUM_NORMALS}-entry "
                     f"table ({len(bad)} vertices)", f"frame {f} vertex {v} normal_index",
               int(header["ofs_frames"]) + f * framesize + md2.FRAME_HEADER.itemsize + 4 * v + 3)
    try:
        decode_glcmds(model.glcmds, model.num_vertices)
    except FormatError as exc:
        offset = None if exc.offset is None else int(header["ofs_glcmds"]) + exc.offset
        note_limit(info, f"GL commands are malformed (Quake II draws with them): {exc.message}", "glcmds", offset)

    degenerate = degenerate_triangles(model.tri_xyz)
    if len(degenerate):
        note_warning(info, f"dropped {len(degenerate)} degenerate triangle(s) that use a vertex twice",
              f"triangle {int(degenerate[0])}", int(header["ofs_tris"]) + int(degenerate[0]) * md2.TRIANGLE.itemsize)
    total = len(model.tri_xyz)
    note_drawable(info, total - len(degenerate), why_none(total), "num_tris", at["num_tris"])
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
    for line in corner_fill_note(model, _pcx_indices(info.skins)):
        note_warning(info, line, "skins", ofs_skins)


def _pcx_indices(skins: list[SkinInfo]) -> list[tuple[str, np.ndarray]]:
    """(file name, palette indices) of each found 8-bit PCX skin file on disk."""
    out = []
    for skin in skins:
        if skin.found and skin.path and skin.path.lower().endswith(".pcx") and Path(skin.path).is_file():
            try:
                indices = decode_pcx(Path(skin.path).read_bytes()).indices
            except (FormatError, OSError):
                continue
            if indices is not None:
                out.append((Path(skin.path).name, indices))
    return out


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


def check_lines(info: ModelInfo) -> list[str]:
    """One line per skin for ``check``: where it was found (and by which rule), or missing."""
    return [f"skin {s.name}: " + (f"found {readable_text(s.path)} ({s.note})" if s.found else f"MISSING ({s.note or 'see warnings'})")
            for s in info.skins]

