"""Blender -> :class:`Md2Model`: frames, quantisation, normals, ST, skins, GL commands, limits.

Frames come from :func:`..sampling.pipeline.sample_model` (timeline, shape keys or actions). A frame the
import created and the user did not change is written back with its original grid, bytes and
normal indices; other frames are quantised on the grid the ``grid`` option picks (see
formats/md2/lattice.py) and get normals as Blender shades the mesh (:mod:`..sampling.shading`;
mirrored objects have their triangles reversed there).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np

import bpy

from ...common.import_shading import relit_report, shaded_as_imported
from ...common.md2.contract import (
    DEGENERATE_MD2,
    MD2_DEGENERATE,
    MD2_FRAMES,
    MD2_GLCMDS,
    MD2_SKIN,
    MD2_SKIN_FIELDS,
    MD2_SKIN_FOUND,
    MD2_SKINS,
    MD2_ST,
    MD2_TAIL,
    ST_INDEX_ATTRIBUTE,
)
from ...common.skin_images import material_image
from ...common.stored_records import stored_bytes, stored_strings
from ...formats.binary import decode_name, name_fields
from ...formats.errors import FormatError
from ...formats.file_tail import kept_tail
from ...formats.images.skin_atlas import MAX_LBM_HEIGHT
from ...formats.images.skin_limits import MD2_HEADER, QUAKE2_PCX, fit_size
from ...formats.md2.codec import FRAME_NAME_SIZE, LIMITS, SKIN_NAME_SIZE, Md2Model, frame_dtype, serialize_md2
from ...formats.md2.glcmds import build_glcmds, glcmd_triangles
from ...formats.md2.lattice import FrameGrids, frame_grids
from ...formats.message_text import quoted
from ...formats.quantize import dequantize, frames_on_grid, quantize
from ...formats.triangles import drop_degenerate
from ..export_error import ExportError
from ..imported_limits import QUAKE2_ENGINES, kept_warning, own_counts, within_own_file
from ..limits import name_problems, over_limits, refuse
from ..name_fitting import FIT_NAMES_HINT, fit_frame_names, fit_path_name, fitted_report
from ..sampling.animated_mesh import MeshPart
from ..sampling.kept_triangles import insert_at, kept_rows
from ..sampling.options import VertexModelOptions
from ..sampling.pipeline import SampledModel, sample_model
from ..sampling.planned import PlannedExport
from ..sampling.shading import normal_indices, shade_model
from ..sampling.skin_packing import FlatSkin, alternate_note, pack_skin
from .skins import new_skin_name

DEFAULT_SKIN_SIZE = 256


@dataclass
class Md2ExportOptions(VertexModelOptions):
    """Frame source, scale and transform; the grid of new frames: AUTO, SHARED or PER_FRAME; skins:
    'PCX', 'PNG', 'TGA' or 'NAMES' (names only), ``skin_folder`` the folder part of new skin names
    (see :mod:`.skins`), ``dither`` for PCX; ``materials``: 'ONE_SKIN' packs the images of the
    materials the faces use into one skin named after ``model_stem`` (see
    :mod:`..sampling.skin_packing`), 'ALTERNATE' writes one skin per material."""
    grid: str = "AUTO"
    skins: str = "PCX"
    skin_path: str = ""
    skin_folder: str = ""
    dither: bool = False
    model_stem: str = ""
    standard_order: str = "DEFAULT"     # actions named after Quake II's player animations in its order
    icons: str = "AUTO"                 # a player's menu icons: AUTO (supplied, else rendered), RENDER, NONE


@dataclass
class BuildResult:
    model: Md2Model
    warnings: list[str] = field(default_factory=list)
    frames_kept: int = 0
    frames_evaluated: int = 0
    grid: str = ""            # the grid new frames got ("SHARED" or "PER_FRAME"), "" if every frame was kept
    max_error: float = 0.0    # their largest position error, model units
    info: list[str] = field(default_factory=list)
    skin_images: dict = field(default_factory=dict)   # skin name -> bpy image (or a packed skin)
    positions: np.ndarray | None = None   # (F, V, 3) the positions the frames were quantised from
    kept: np.ndarray | None = None        # (F,) True where a frame was written back as imported
    own_frames: bool = False              # every frame is one of the imported file's own (edited or not)
    sampled: SampledModel | None = None   # the frames written (plan and planned frames), for an MD5 twin
    corner_uvs: np.ndarray | None = None  # (T, 3, 2) the UVs of the skins named, sampled triangle order


def build_md2(context: bpy.types.Context, objects: list[bpy.types.Object], options: Md2ExportOptions,
              progress: Callable[[float], None] | None = None) -> BuildResult:
    sampled = sample_model(context, objects, options, "MD2", (ST_INDEX_ATTRIBUTE,), MD2_DEGENERATE,
                           check=partial(_check_planned, fit_names=options.fit_names))
    shading = shade_model(sampled, options.apply_transform, options.scale, options.split_normals)
    if progress:
        progress(0.5)
    parts, first, exported = sampled.parts, sampled.first, sampled.exported
    num_frames = len(sampled.positions)
    packed = pack_skin(parts, options.materials, MAX_LBM_HEIGHT)
    if packed is None:
        skin_width, skin_height = _skin_size(first, [p.obj for p in parts], options.skins != "NAMES")
    else:
        skin_width, skin_height = packed.layout.width, packed.layout.height
    skin_width, skin_height, size_note = _loadable_skin_size(first, skin_width, skin_height, options.skins,
                                                             packed is None)
    names = exported.names
    positions, tris_ccw = sampled.positions, sampled.triangles
    degenerate = (kept_rows(first.data, MD2_DEGENERATE, DEGENERATE_MD2, positions.shape[1], "xyz")
                  if len(parts) == 1 else None)
    tri_xyz = tris_ccw[:, ::-1].astype(np.uint16)
    st_table, tri_st = _st(parts, skin_width, skin_height, degenerate,
                           None if packed is None else packed.corner_uvs)
    if degenerate is not None:
        tri_xyz = insert_at(tri_xyz, degenerate["xyz"], degenerate["index"])
    grey = None
    if packed is None:
        skins, skin_images = _skins(first, [p.obj for p in parts], options.skin_folder, (skin_width, skin_height))
        if not skins and first.data.get(MD2_FRAMES) is None:      # made in Blender without any material
            grey = FlatSkin.of(None, skin_width, skin_height)
            skins = [new_skin_name(options.skin_folder, f"{options.model_stem or first.name}_skin")]
            skin_images = {skins[0]: grey}
    else:
        skins = [new_skin_name(options.skin_folder, f"{options.model_stem or first.name}_skin")]
        skin_images = {skins[0]: packed}
    stored = _stored_frames(first, positions.shape[1], len(exported.table)) if len(parts) == 1 else None
    name_raw = ([stored.name_fields[m] if exported.stored_name(f) else b"" for f, m in enumerate(exported.match)]
                if stored else None)
    skin_raw = _stored_skin_fields(first, skins)
    fitted: list[str] = []
    if options.fit_names:
        names, skins, skin_images, fitted = _fit_names(names, name_raw, skins, skin_raw, skin_images)
    kept_note = _check_limits(sampled.label, positions.shape[1], len(tri_xyz), num_frames,
                              _new_names(names, name_raw), _new_names(skins, skin_raw),
                              own_counts(first) if len(parts) == 1 else {})

    result = BuildResult(model=None, skin_images=skin_images, info=list(sampled.report),  # type: ignore[arg-type]
                         warnings=fitted, sampled=sampled,
                         corner_uvs=packed.corner_uvs if packed is not None else sampled.uvs)
    result.warnings += [kept_note] if kept_note else []
    if size_note:
        (result.warnings if size_note.startswith("the imported") else result.info).append(size_note)
    for name, image in skin_images.items():
        if isinstance(image, FlatSkin):
            written = "; Skins: Names Only, so it is not written" if options.skins == "NAMES" else ""
            what = (f"{first.name} has no material: skin {quoted(name)} is a flat {skin_width}x{skin_height} skin of "
                    f"Blender's grey" if image is grey else f"{image.label} has no image: skin {quoted(name)} is a flat "
                    "skin of its base colour")
            text = f"{what} {image.colour[:3]}{written}"
            result.warnings.append(text if image is grey else image.message(text))
    note = packed.report(quoted(skins[0])) if packed is not None else alternate_note(parts, options.materials)
    if packed is not None and options.skins == "NAMES":
        note += "; Skins: Names Only, so its file is not written"
    if note:
        result.info.append(note)
    scale, translate, verts, normals, kept, grids = _quantize(positions, exported.match, stored, options.grid)
    relit = bool(kept.any()) and not shaded_as_imported(first)     # kept frames, their normals edited
    lit = np.zeros_like(kept) if relit else kept
    if not lit.all():
        recompute = np.flatnonzero(~lit)
        changed = positions if len(recompute) == len(lit) else positions[recompute]   # every frame: no copy
        normals[recompute] = normal_indices(changed, shading)
    if relit:
        result.info.append(relit_report([first.name]))
    if grids is not None:
        result.grid, result.max_error = grids.mode, grids.max_error
        result.info.append(_grid_report(options.grid, grids, len(grids.verts)))
    result.frames_kept = int(kept.sum())
    result.positions, result.kept = positions, kept
    result.own_frames = stored is not None and bool(len(exported.match)) and bool(np.all(exported.match >= 0))
    result.frames_evaluated = sampled.frames_evaluated
    glcmds = _glcmds(first, len(parts), tri_xyz, tri_st, st_table, skin_width, skin_height)
    result.model = Md2Model(skin_width=skin_width, skin_height=skin_height, skins=skins, st=st_table,
                            tri_xyz=tri_xyz, tri_st=tri_st, frame_names=names, frame_scale=scale,
                            frame_translate=translate, frame_verts=verts, frame_normals=normals,
                            glcmds=glcmds, skin_name_raw=skin_raw, frame_name_raw=name_raw)
    tail = stored_bytes(first.data, MD2_TAIL) if len(parts) == 1 else None
    if tail is not None:
        result.model.trailing = kept_tail(tail, serialize_md2(result.model))
        if result.model.trailing:
            result.info.append(f"wrote back the {len(result.model.trailing)} bytes the file had after its last "
                               "block (the model is unchanged)")
    if progress:
        progress(1.0)
    return result


def _skin_size(obj: bpy.types.Object, objects: list[bpy.types.Object], one_size: bool) -> tuple[int, int]:
    """The imported skin size, else the images' size; with ``one_size`` images of different sizes
    (which one header size cannot describe) are refused."""
    settings = obj.classic_model
    if settings.skin_width > 0 and settings.skin_height > 0:
        return settings.skin_width, settings.skin_height
    sizes: dict[tuple[int, int], str] = {}
    for each in objects:
        for slot in each.material_slots:
            image = material_image(slot.material)
            if image is not None and image.size[0] > 0:
                sizes.setdefault((int(image.size[0]), int(image.size[1])), image.name)
    if one_size and len(sizes) > 1:
        listed = ", ".join(f"{quoted(name)} {w}x{h}" for (w, h), name in sizes.items())
        raise ExportError(f"{obj.name}: the skin images differ in size ({listed}); an MD2 has one skin size, "
                          "so scale them to one size or export with Skins: Names")
    return next(iter(sizes), (DEFAULT_SKIN_SIZE, DEFAULT_SKIN_SIZE))


def _loadable_skin_size(obj: bpy.types.Object, width: int, height: int, skins: str,
                        may_keep: bool) -> tuple[int, int, str]:
    """The header's skin size, scaled down (aspect kept) to what Quake II loads: ``skinheight`` at most
    480 (Mod_LoadAliasModel), and with PCX skins, written at this size, at most 640x480 and 512*256
    pixels (LoadPCX, GL_Upload8; :mod:`...formats.images.skin_limits`). UVs are normalised, so every
    corner keeps its place on the skin. The size an import stored is kept (with a warning when Quake
    II refuses it) so an untouched model is written back as it was. Also the line for the report."""
    settings = obj.classic_model
    if may_keep and (width, height) == (settings.skin_width, settings.skin_height):
        problems = MD2_HEADER.problems(width, height, "skin")
        note = (f"the imported skin size {width}x{height} is kept, but Quake II refuses the model: "
                f"{'; '.join(problems)} (Mod_LoadAliasModel)") if problems else ""
        return width, height, note
    box = QUAKE2_PCX if skins == "PCX" else MD2_HEADER
    new_w, new_h = fit_size(width, height, box)
    if (new_w, new_h) == (width, height):
        return width, height, ""
    kept = {"PCX": "; the PCX skin is scaled to it",
            "NAMES": "; make the skin files this size"}.get(skins, f"; the {skins} file keeps its {width}x{height} "
                                                                   "pixels (source ports scale it)")
    limit = ("640x480 and 131072 pixels for a PCX skin" if skins == "PCX" else "480 pixels high")
    return new_w, new_h, (f"skin {width}x{height} is larger than Quake II loads ({limit}): the model's skin size is "
                          f"{new_w}x{new_h}, aspect kept{kept}")


def _st(parts: list[MeshPart], width: int, height: int, degenerate: np.ndarray | None,
        packed_uvs: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """ST table and per-triangle ST indices in file corner order (the inverse of the import's UVs),
    with the kept ``degenerate`` triangles' STs (from the imported table) at their places;
    ``packed_uvs`` are the corners' UVs in a packed skin (else the meshes' own)."""
    if packed_uvs is None:
        packed_uvs = np.concatenate([p.topology.corner_uvs for p in parts])
    uvs = packed_uvs[:, ::-1]
    s = np.rint(uvs[..., 0] * width - 0.5)
    t = np.rint((1.0 - uvs[..., 1]) * height - 0.5)
    if not (np.all(np.isfinite(s)) and np.all(np.isfinite(t))):
        raise ExportError(f"object {quoted(parts[0].obj.name)} has non-finite UV coordinates")
    if s.size and (s.min() < -32768 or s.max() > 32767 or t.min() < -32768 or t.max() > 32767):
        raise ExportError(f"object {quoted(parts[0].obj.name)} has UVs too far outside the skin for 16-bit ST")
    corner_st = np.stack([s, t], axis=-1).astype(np.int16).reshape(-1, 3, 2)
    if degenerate is not None:
        table = _imported_st_table(parts[0])
        if table is None or degenerate["st"].max() >= len(table):
            raise ExportError(f"object {quoted(parts[0].obj.name)}: the kept degenerate triangles lost their ST table")
        corner_st = insert_at(corner_st, table[degenerate["st"]], degenerate["index"])
    if len(parts) == 1:
        kept = _stored_st(parts[0], corner_st, degenerate)
        if kept is not None:
            return kept
    flat = corner_st.reshape(-1, 2)
    unique, first, inverse = np.unique(flat, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return unique[order].astype(np.int16), rank[inverse.ravel()].reshape(-1, 3).astype(np.uint16)


def _imported_st_table(part: MeshPart) -> np.ndarray | None:
    blob = stored_bytes(part.obj.data, MD2_ST)
    return None if blob is None or len(blob) % 4 else np.frombuffer(blob, dtype="<i2").reshape(-1, 2)


def _stored_st(part: MeshPart, corner_st: np.ndarray,
               degenerate: np.ndarray | None) -> tuple[np.ndarray, np.ndarray] | None:
    """The imported ST table and indices, if they still give exactly these corner STs."""
    table = _imported_st_table(part)
    index = part.topology.int_attributes.get(ST_INDEX_ATTRIBUTE)
    if table is None or index is None:
        return None
    index = index[:, ::-1]
    if degenerate is not None:
        index = insert_at(index, degenerate["st"].astype(index.dtype), degenerate["index"])
    if index.min(initial=0) < 0 or index.max(initial=-1) >= len(table):
        return None
    if not np.array_equal(table[index], corner_st):
        return None
    return table.astype(np.int16), index.astype(np.uint16)


@dataclass
class _StoredFrames:
    """The frames the import kept on the mesh, in file order (entry i of the frame table)."""
    scale: np.ndarray       # (N, 3) float32
    translate: np.ndarray   # (N, 3) float32
    verts: np.ndarray       # (N, V, 3) uint8
    normals: np.ndarray     # (N, V) uint8
    name_fields: list[bytes]  # the 16-byte name fields as the file had them


def _stored_frames(obj: bpy.types.Object, num_vertices: int, num_entries: int) -> _StoredFrames | None:
    blob = stored_bytes(obj.data, MD2_FRAMES)
    if blob is None or not num_entries:
        return None
    if len(blob) != num_entries * frame_dtype(num_vertices).itemsize:
        return None
    records = np.frombuffer(blob, dtype=frame_dtype(num_vertices))
    return _StoredFrames(records["head"]["scale"], records["head"]["translate"], records["verts"]["v"],
                         records["verts"]["normal_index"],
                         name_fields(records["head"]["name"]))


def _quantize(positions: np.ndarray, match: np.ndarray, stored: _StoredFrames | None, grid: str = "AUTO"):
    """Grids, bytes and normals per frame; ``kept`` marks frames written back exactly as imported.

    A frame the import created keeps its grid while every vertex still lies on it; a frame whose
    bytes are also unchanged keeps its normal indices. Other frames are quantised together on the
    ``grid`` mode's grids (returned as :class:`FrameGrids`, None when there are none).
    """
    count = len(match)
    if stored is None:
        match = np.full(count, -1, dtype=np.int64)
    has = match >= 0
    scale = np.empty((count, 3), np.float32)
    translate = np.empty((count, 3), np.float32)
    verts = np.empty(positions.shape, np.uint8)
    normals = np.zeros(positions.shape[:2], np.uint8)
    kept = np.zeros(count, dtype=bool)
    if has.any():
        scale[has], translate[has] = stored.scale[match[has]], stored.translate[match[has]]
        verts[has] = stored.verts[match[has]]
        num_vertices = positions.shape[1]
        kept[has] = _screened(has, num_vertices, lambda f, v: np.all(
            dequantize(verts[:, v][f], scale[f], translate[f]) == positions[:, v][f], axis=(1, 2)))
        moved = has & ~kept
        has[moved] = _screened(moved, num_vertices, lambda f, v: frames_on_grid(
            positions[:, v][f], quantize(positions[:, v][f], scale[f], translate[f]), scale[f], translate[f]))
        moved = has & ~kept
        if moved.any():
            verts[moved] = quantize(positions[moved], scale[moved], translate[moved])
            kept[moved] = np.all(verts[moved] == stored.verts[match[moved]], axis=(1, 2))
        normals[kept] = stored.normals[match[kept]]
    grids = None
    if not has.any():                    # every frame new (an edited model): no copies by mask
        grids = frame_grids(positions, grid)
        scale, translate, verts = (np.ascontiguousarray(a) for a in (grids.scale, grids.translate, grids.verts))
    elif not has.all():
        grids = frame_grids(positions[~has], grid)
        scale[~has], translate[~has], verts[~has] = grids.scale, grids.translate, grids.verts
    return scale, translate, verts, normals, kept, grids


def _screened(rows: np.ndarray, num_vertices: int, test: Callable[[np.ndarray, object], np.ndarray],
              sample: int = 64) -> np.ndarray:
    """``test(frames, vertices)``, a check that every vertex of each frame passes, for the frames
    ``rows`` marks: first on a few vertices spread over the mesh, then in full only on the frames that
    passed. The same answer, without the full work on frames that plainly fail (an edited model's)."""
    frames = np.flatnonzero(rows)
    if not len(frames):
        return np.zeros(0, dtype=bool)
    probe = np.unique(np.linspace(0, max(num_vertices - 1, 0), min(sample, num_vertices)).astype(np.int64))
    result = np.asarray(test(frames, probe), dtype=bool)
    if result.any():
        result[result] = test(frames[result], slice(None))
    return result


def _grid_report(option: str, grids: FrameGrids, frames: int) -> str:
    """Which grid the new frames got (and whether AUTO chose it), and their largest error."""
    name = {"SHARED": "one shared lattice", "PER_FRAME": "per-frame grids"}[grids.mode]
    chosen = " (chosen by Auto)" if option == "AUTO" else ""
    if option == "SHARED" and grids.mode != "SHARED":
        chosen = " (no float32 lattice holds this model)"
    return f"MD2 grid: {name}{chosen} for {frames} frame(s), largest error {grids.max_error:.4g} units"


def _skins(first: bpy.types.Object, objects: list[bpy.types.Object], folder: str,
           size: tuple[int, int]) -> tuple[list[str], dict]:
    """Skin paths from the materials (the imported path, else ``<folder>/<image or material>.pcx``)
    and the image of each; materials the import added for images the file does not name are left out.
    A new material without an image gets a :class:`FlatSkin` of its base colour, so every skin the
    file names is written (a model made in Blender without any material gets one of Blender's grey,
    named after the model, in :func:`build_md2`)."""
    names: list[str] = []
    images: dict = {}
    for obj in objects:
        for slot in obj.material_slots:
            mat = slot.material
            if mat is None or mat.get(MD2_SKIN_FOUND):
                continue
            skin = str(mat.get(MD2_SKIN, ""))
            image = material_image(mat)
            if not skin:
                stem_of = Path(image.filepath_raw or image.name).stem if image is not None else mat.name
                skin = new_skin_name(folder, stem_of)
            if skin not in names:
                names.append(skin)
                images[skin] = image if image is not None or mat.get(MD2_SKIN) else FlatSkin.of(mat, *size)
    stored = stored_strings(first.data, MD2_SKINS) or []
    if stored and set(stored) == set(names):
        return stored, images
    return names, images


def _stored_skin_fields(obj: bpy.types.Object, skins: list[str]) -> list[bytes] | None:
    """The imported 64-byte skin fields, when the skins are still the imported ones in order."""
    blob = stored_bytes(obj.data, MD2_SKIN_FIELDS)
    if blob is None or (stored_strings(obj.data, MD2_SKINS) or []) != skins:
        return None
    return [blob[i:i + SKIN_NAME_SIZE] for i in range(0, len(blob), SKIN_NAME_SIZE)]


def _new_names(names: list[str], stored_fields: list[bytes] | None) -> list[str | None]:
    """``names`` with None for each name written back from the field the file stored it in (a name
    that filled its field to the last byte is kept byte for byte while it is unchanged)."""
    if stored_fields is None or len(stored_fields) != len(names):
        return list(names)
    return [None if raw and decode_name(raw) == name else name for name, raw in zip(names, stored_fields)]


def _check_limits(name: str, vertices: int, triangles: int, frames: int, frame_names: list[str | None],
                  skins: list[str | None], own: dict[str, int]) -> str | None:
    """Counts against the engine's limits, raised to the counts the imported file ``own`` had
    (:mod:`..imported_limits`; the warning for those is returned); names (None: written back from the file's
    own field) against their fields, leaving room for the NUL."""
    rows, allowed = within_own_file((("vertices", vertices, LIMITS.vertices),
                                     ("triangles", triangles, LIMITS.triangles), ("frames", frames, LIMITS.frames),
                                     ("skins", len(skins), LIMITS.skins)), own)
    refuse(f"{name}: cannot export as MD2: ",
           over_limits(tuple(rows))
           + name_problems("frame name", frame_names, FRAME_NAME_SIZE, FIT_NAMES_HINT)
           + name_problems("skin name", skins, SKIN_NAME_SIZE, FIT_NAMES_HINT))
    return kept_warning(name, allowed, QUAKE2_ENGINES, "Quake II")


def _check_planned(planned: PlannedExport, fit_names: bool) -> None:
    """The counts (and frame names) known before sampling, against the limits (raised to the imported
    file's own counts), with what to change."""
    own = own_counts(planned.first)
    rows, _ = within_own_file((("vertices", planned.vertices, LIMITS.vertices),
                               ("triangles", planned.triangles, LIMITS.triangles)), own)
    problems = over_limits(tuple(rows))
    if planned.frames is not None and planned.frames > max(LIMITS.frames, own.get("frames", 0)):
        problems += [f"{over_limits((('frames', planned.frames, LIMITS.frames),))[0]}: "
                     f"{planned.fewer_frames(LIMITS.frames)}"]
    if planned.names is not None and not fit_names:
        problems += name_problems("frame name", planned.names, FRAME_NAME_SIZE, FIT_NAMES_HINT)
    refuse(f"{planned.label}: cannot export as MD2: ", problems)


def _fit_names(names: list[str], name_raw: list[bytes] | None, skins: list[str], skin_raw: list[bytes] | None,
               skin_images: dict) -> tuple[list[str], list[str], dict, list[str]]:
    """Fit Names: frame and skin names shortened to their fields (:mod:`..name_fitting`); report lines."""
    new_frames = _new_names(names, name_raw)
    names, frame_changes = fit_frame_names(names, FRAME_NAME_SIZE, [n is None for n in new_frames])
    new_skins = _new_names(skins, skin_raw)
    fitted_skins = [s if new is None else fit_path_name(s, SKIN_NAME_SIZE) for s, new in zip(skins, new_skins)]
    skin_changes = {old: new for old, new in zip(skins, fitted_skins) if old != new}
    images = {skin_changes.get(k, k): v for k, v in skin_images.items()}
    report = [fitted_report(what, changes, size) for what, changes, size in
              (("frame name", frame_changes, FRAME_NAME_SIZE), ("skin name", skin_changes, SKIN_NAME_SIZE))
              if changes]
    return names, fitted_skins, images, report


def _glcmds(first: bpy.types.Object, num_parts: int, tri_xyz: np.ndarray, tri_st: np.ndarray,
            st: np.ndarray, width: int, height: int) -> np.ndarray:
    """The imported GL commands if they still draw these triangles with these texels, else new ones."""
    blob = stored_bytes(first.data, MD2_GLCMDS) if num_parts == 1 else None
    if blob and len(blob) % 4 == 0:
        old = np.frombuffer(blob, dtype="<i4")
        try:
            drawn = glcmd_triangles(old, int(tri_xyz.max(initial=0)) + 1)
        except FormatError:
            drawn = None
        if drawn is not None and _draws_same(drawn, tri_xyz, st[tri_st], width, height):
            return old.copy()
    return build_glcmds(tri_xyz, tri_st, st, width, height)


def _canonical_order(verts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rotate each triangle so its smallest vertex comes first (winding kept); sort the triangles."""
    verts = np.asarray(verts, dtype=np.int64)
    shift = np.argmin(verts, axis=1)
    cols = (shift[:, None] + np.arange(3)[None, :]) % 3
    rotated = np.take_along_axis(verts, cols, axis=1)
    order = np.lexsort(rotated.T[::-1])
    return rotated[order], (order, cols[order])


def _draws_same(drawn, tri_xyz: np.ndarray, corner_st: np.ndarray, width: int, height: int) -> bool:
    """Same triangles with the same winding, each corner's GL texel within the same skin texel
    (triangles that use a vertex twice draw nothing and are left out on both sides)."""
    verts, s, t = drawn
    verts, s, t = np.asarray(verts), np.asarray(s), np.asarray(t)
    shown = drop_degenerate(verts)
    verts, s, t = verts[shown], s[shown], t[shown]
    proper = drop_degenerate(tri_xyz)
    tri_xyz, corner_st = tri_xyz[proper], corner_st[proper]
    if len(verts) != len(tri_xyz):
        return False
    a, (a_order, a_cols) = _canonical_order(verts)
    b, (b_order, b_cols) = _canonical_order(tri_xyz)
    if not np.array_equal(a, b):
        return False
    gl = np.stack([np.take_along_axis(np.asarray(s)[a_order], a_cols, 1) * width,
                   np.take_along_axis(np.asarray(t)[a_order], a_cols, 1) * height], axis=-1)
    texel = np.take_along_axis(corner_st[b_order], b_cols[..., None], 1).astype(np.float64) + 0.5
    return bool(np.all(np.abs(gl - texel) <= 0.5 + 1e-3))
