"""Blender -> :class:`MdlModel`: one global grid, texture records with seams, paletted skins, groups.

A model that came from an import and was not changed is written back with its grid, bytes,
normals, bounding boxes, texture records, frame groups with their intervals, skins (the same
palette indices) and header values; one scaled evenly or moved keeps the normals of poses whose
bytes did not change (squashed or stretched along an axis, they lean: computed afresh). Changed
parts are rebuilt as id's tools build them: the grid from the bounds of every frame, bounding radius
from the farthest bounding box corner, size as the mean triangle area of the first frame; normals as
Blender shades the mesh (:mod:`..sampling.shading`, taken before the split at UV seams).
The flavour (IDPO, MD16, RAPO) is the option's, else the one the object was imported as; what MD16
and RAPO change (16-bit lattice, texcoord table) is in :mod:`.variant`.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import numpy as np

import bpy

from ...common.contract import INTERVALS
from ...common.import_shading import relit_report, shaded_as_imported
from ...common.mdl.contract import (
    DEGENERATE_MDL,
    FACESFRONT,
    MDL_DEGENERATE,
    MDL_FRAME_SLOTS,
    MDL_PALETTE,
    MDL_POSES,
    MDL_ST_INDEX,
    MDL_TAIL,
    TEXCOORD_ATTRIBUTES,
)
from ...common.mdl_skins import material_skin_images, mdl_skin_slots, read_palette
from ...common.stored_records import stored_bytes, stored_json
from ...formats.binary import decode_name, name_fields
from ...formats.errors import FormatError
from ...formats.file_tail import kept_tail
from ...formats.images.palette import PLAYER_RANGES, game_palette
from ...formats.images.skin_atlas import pack_images
from ...formats.images.skin_limits import SkinBox, fit_size
from ...formats.mdl.codec import (
    HEXEN2_LIMITS,
    LIMITS,
    MdlFrameSlot,
    MdlLimits,
    MdlModel,
    MdlSkin,
    pose_dtype,
    serialize_mdl,
)
from ...formats.mdl.skin_fill import corner_fill_note
from ...formats.mdl.texcoords import assign_texcoords
from ...formats.mdl.variants import frames_on_lattice16
from ...formats.message_text import quoted
from ...formats.quantize import frames_on_grid, grid_from_bounds, quantize
from ..export_error import ExportError
from ..imported_limits import QUAKE_ENGINES, kept_warning, own_counts, within_own_file
from ..limits import name_problems, over_limits, refuse
from ..name_fitting import FIT_NAMES_HINT, fit_frame_names, fitted_report
from ..sampling.animated_mesh import ExportedFrames
from ..sampling.kept_triangles import insert_at, kept_rows
from ..sampling.options import VertexModelOptions
from ..sampling.pipeline import SampledModel, sample_model, sampled_meshes
from ..sampling.planned import PlannedExport
from ..sampling.shading import normal_indices, shade_model
from ..sampling.skin_packing import FlatSkin, PackedSkin, alternate_note, pack_skin
from .grid_shape import imported_grid, same_shape
from .player_colours import player_colours
from .skin_indices import SkinConverter
from .variant import MD16, RAPO, export_variant, low_records, rapo_kept_st, rapo_texcoords, sixteen_bit

MODERN_LIMITS = MdlLimits(vertices=65536, triangles=65536, frames=1024, skin_height=4096, skin_pixels=0)
FRAME_NAME_SIZE = 16
DEFAULT_SKIN = 64


@dataclass
class MdlExportOptions(VertexModelOptions):
    target: str = "QUAKE"          # or "MODERN": limits of modern source ports
    dither: bool = False
    palette_path: str = ""
    palette: str = ""              # '' by flavour: Hexen II's for RAPO (as its import decodes it), else Quake's
    skin_width_rule: str = "PAD"   # or "REFUSE" a skin width that is not a multiple of 4
    mdl_format: str = ""           # "IDPO", "MD16", "RAPO"; empty: the flavour the object was imported as
    player_colours: str = "AUTO"   # "ON", "OFF": may new skin colours use 16-31 and 96-111 (see .player_colours)
    file_name: str = ""            # the file written (player.mdl), for the AUTO player rule


@dataclass
class MdlBuildResult:
    model: MdlModel
    warnings: list[str] = field(default_factory=list)
    vertices_added: int = 0
    poses_kept: int = 0
    info: list[str] = field(default_factory=list)
    sampled: SampledModel | None = None   # the frames written (plan and planned frames), for an MD5 twin
    corner_uvs: np.ndarray | None = None  # (T, 3, 2) the UVs of the skin written, sampled triangle order


def skin_object(objects: list[bpy.types.Object]) -> bpy.types.Object:
    """The object whose material slots give the MDL's skins (:func:`..common.mdl_skins.mdl_skin_slots`): the
    first mesh :func:`build_mdl` samples (a mesh without faces is left out)."""
    return sampled_meshes(objects, MDL_DEGENERATE)[0][0]


def build_mdl(context: bpy.types.Context, objects: list[bpy.types.Object], options: MdlExportOptions,
              progress: Callable[[float], None] | None = None) -> MdlBuildResult:
    attributes = (FACESFRONT, *TEXCOORD_ATTRIBUTES, MDL_ST_INDEX)
    sampled = sample_model(context, objects, options, "MDL", attributes, MDL_DEGENERATE,
                           check=partial(_check_planned, options=options))
    shading = shade_model(sampled, options.apply_transform, options.scale, options.split_normals)
    if progress:
        progress(0.4)
    parts, first, exported = sampled.parts, sampled.first, sampled.exported
    mesh = first.data
    single = len(parts) == 1
    settings = first.classic_model
    variant = export_variant(first, options.mdl_format)
    warnings: list[str] = []
    game = options.palette or ("HEXEN2" if variant == RAPO else "QUAKE")
    palette = _palette(options.palette_path, game)
    kept_palette = stored_bytes(first, MDL_PALETTE)
    if not (options.palette or options.palette_path) and kept_palette and len(kept_palette) == 768:
        palette = np.frombuffer(kept_palette, np.uint8).reshape(256, 3).copy()   # its game folder's
        game = "HEXEN2" if np.array_equal(palette, game_palette("HEXEN2")) else game
    limits = MODERN_LIMITS if options.target == "MODERN" else LIMITS
    info: list[str] = list(sampled.report)
    packed = pack_skin(parts, options.materials, limits.skin_height, width_multiple=4)
    shown = ([s.image for s in packed.sources] if packed is not None else
             [image for slot in first.material_slots for image, _ in material_skin_images(slot.material)])
    player, note = player_colours(first, shown, options.player_colours, options.file_name, game)
    info.append(note)
    avoid = () if player else PLAYER_RANGES
    convert = SkinConverter(palette, options.dither, avoid, warnings)
    if packed is None:
        skins, width, height, scaled = _skins(first, convert, options, limits, info)
        note = alternate_note(parts, options.materials)
        info += [note] if note else []
    else:
        skins, width, height = _packed_skins(packed, convert)
        scaled = False
        info.append(packed.report("0"))
    convert.report()
    names = exported.names
    positions, tris_ccw, uvs = sampled.positions, sampled.triangles, sampled.uvs
    if packed is not None:
        uvs = packed.corner_uvs
    file_tris = tris_ccw[:, ::-1]
    uv_width = (settings.skin_width if packed is None and not scaled and settings.source_format == "MDL"
                and settings.skin_width
                else width)
    corner_uv = uvs[:, ::-1]
    corner_st = np.stack([np.rint(corner_uv[..., 0] * uv_width - 0.5),
                          np.rint((1.0 - corner_uv[..., 1]) * height - 0.5)], axis=-1)
    if not np.all(np.isfinite(corner_st)):
        raise ExportError(f"object {quoted(first.name)} has non-finite UV coordinates")
    facesfront, stored_tex = _facesfront_and_records(parts, corner_uv, single and packed is None)
    if variant == RAPO:
        tex = rapo_texcoords(parts[0], single and packed is None, file_tris, corner_st.astype(np.int64), facesfront,
                             positions.shape[1], width)
    else:
        tex = assign_texcoords(file_tris, corner_st.astype(np.int64), facesfront, positions.shape[1], width,
                               stored_tex)
    if tex.vertices_added:
        warnings.append(f"MDL stores one texture coordinate per vertex: {tex.vertices_added} vertices were "
                        "split where corners of a vertex use different texels")
    unsplit = positions
    unsplit, source_vertex = positions, tex.source_vertex
    positions = positions[:, source_vertex]
    triangles, facesfront = tex.triangles, facesfront.astype(np.int32)
    degenerate = kept_rows(mesh, MDL_DEGENERATE, DEGENERATE_MDL, len(tex.source_vertex), "vertices") if single else None
    kept_st = rapo_kept_st(mesh, tex, len(degenerate)) if degenerate is not None and variant == RAPO else None
    if degenerate is not None and variant == RAPO and kept_st is None:
        warnings.append(f"{len(degenerate)} triangle(s) that use a vertex twice (kept from the import, drawing "
                        "nothing) were left out: they have no RAPO texture indices")
        degenerate = None
    if degenerate is not None:
        triangles = insert_at(triangles, degenerate["vertices"].astype(triangles.dtype), degenerate["index"])
        facesfront = insert_at(facesfront, degenerate["facesfront"], degenerate["index"])
    st_triangles = tex.st_triangles
    if kept_st is not None:
        tex = kept_st[1]
        st_triangles = insert_at(st_triangles, kept_st[0], degenerate["index"])
    sixteen = variant == MD16
    stored = (_stored_poses(mesh, positions.shape[1], len(exported.table), sixteen)
              if single and not tex.vertices_added else None)
    stored_names = name_fields(stored["head"]["name"]) if stored is not None else None
    name_raw = ([stored_names[m] if exported.stored_name(f) else b"" for f, m in enumerate(exported.match)]
                if stored_names is not None else None)
    limits = MODERN_LIMITS if options.target == "MODERN" else HEXEN2_LIMITS if variant == RAPO else LIMITS
    new_names = [None if name_raw and len(name_raw[f]) == FRAME_NAME_SIZE and decode_name(name_raw[f]) == n else n
                 for f, n in enumerate(names)]
    if options.fit_names:
        names, changes = fit_frame_names(names, FRAME_NAME_SIZE, [n is None for n in new_names])
        new_names = [None if old is None else new for old, new in zip(new_names, names)]
        warnings += [fitted_report("frame name", changes, FRAME_NAME_SIZE)] if changes else []
    kept_note = _check_limits(sampled.label, positions.shape[1], len(triangles), len(names), new_names, height,
                              limits, options, len(skins), own_counts(first) if single else {})
    warnings += [kept_note] if kept_note else []
    if limits is HEXEN2_LIMITS:
        refuse(f"{sampled.label}: cannot export as MDL: ",
               over_limits((("texture coordinates", len(tex.s), limits.vertices),), "Hexen II's limit"))

    bounds = _bounds(positions)
    grid_scale, grid_translate = _grid(mesh if single else None, positions, bounds, sixteen)
    if sixteen:
        verts, low = sixteen_bit(positions, grid_scale, grid_translate)
    else:
        verts, low = quantize(positions, np.broadcast_to(grid_scale, (len(positions), 3)),
                              np.broadcast_to(grid_translate, (len(positions), 3))), None
    imported = imported_grid(mesh if single else None)
    normals, bbox_min, bbox_max, kept, relit = _poses(
        verts, exported.match, stored if same_shape(grid_scale, imported) else None,
        lambda redo: normal_indices(unsplit[redo], shading)[:, source_vertex], low,
        keep_normals=lambda: shaded_as_imported(first))
    if relit:
        info.append(relit_report([first.name]))
    slots = _slots(mesh if single else None, exported, kept, bbox_min, bbox_max)
    # the header's radius (from the origin) holds while the poses and the grid are the imported ones, its
    # size (triangle areas) while the poses and the grid's step are
    same_step = (bool(kept.all()) and stored is not None and imported is not None and settings.source_format == "MDL"
                 and np.array_equal(grid_scale, imported[0]))
    radius, size = _radius_and_size(positions, triangles, bounds)
    if same_step:
        size = settings.mdl_size
        if np.array_equal(grid_translate, imported[1]):
            radius = settings.mdl_bounding_radius
    if progress:
        progress(0.8)
    model = MdlModel(
        scale=grid_scale, translate=grid_translate, bounding_radius=float(radius),
        eye_position=np.array(settings.mdl_eye_position, np.float32), skin_width=width, skin_height=height,
        synctype=1 if settings.mdl_synctype == "RAND" else 0, flags=int(settings.mdl_flags), size=float(size),
        skins=skins, onseam=tex.onseam, s=tex.s, t=tex.t, facesfront=facesfront,
        triangles=triangles, pose_names=names, pose_verts=verts, pose_normals=normals,
        pose_bbox_min=bbox_min, pose_bbox_max=bbox_max, frames=slots, variant=variant, st_triangles=st_triangles,
        pose_low=low_records(low, kept, exported.match, stored) if sixteen else None,
        pose_name_raw=name_raw)
    warnings += corner_fill_note(model)
    tail = stored_bytes(mesh, MDL_TAIL) if single else None
    if tail is not None:
        model.trailing = kept_tail(tail, serialize_mdl(model))
        if model.trailing:
            info.append(f"wrote back the {len(model.trailing)} bytes the file had after its last frame (the model "
                        "is unchanged)")
    twin_uvs = uvs * np.array([uv_width / width, 1.0])
    return MdlBuildResult(model, warnings, tex.vertices_added, int(kept.sum()), info, sampled, twin_uvs)


def _palette(path_text: str, game: str) -> np.ndarray:
    try:
        return read_palette(path_text, game)
    except (FormatError, OSError) as exc:
        raise ExportError(f"palette: {exc}") from exc


def _facesfront_and_records(parts, corner_uv: np.ndarray, single: bool):
    """facesfront per triangle (kept from the import, else 0 where all corners lie in the right half
    of the skin) and the imported texture records, if any."""
    computed = np.where(np.all(corner_uv[..., 0] >= 0.5, axis=1), 0, 1)
    if not single:
        return computed, None
    attrs = parts[0].topology.int_attributes
    facesfront = attrs.get(FACESFRONT, computed)
    records = tuple(attrs.get(name) for name in TEXCOORD_ATTRIBUTES)
    return np.asarray(facesfront), (records if all(r is not None for r in records) else None)


def _grid(mesh, positions: np.ndarray, bounds: tuple[np.ndarray, np.ndarray],
          sixteen: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The imported grid while every position still lies on it (MD16: on its 16-bit lattice), else one
    from ``bounds``, the (min, max) of all frames' positions."""
    grid = imported_grid(mesh)
    if grid is not None:
        scale, translate = grid

        def on_grid(frames: np.ndarray) -> bool:
            s, t = np.broadcast_to(scale, (len(frames), 3)), np.broadcast_to(translate, (len(frames), 3))
            return bool((frames_on_lattice16(frames, scale, translate) if sixteen
                         else frames_on_grid(frames, quantize(frames, s, t), s, t)).all())
        # the first frame alone settles an edited model (scaled, moved: off the grid) without the others
        if on_grid(positions[:1]) and on_grid(positions):
            return scale, translate
    return grid_from_bounds(*bounds)


def _stored_poses(mesh, num_vertices: int, num_entries: int, sixteen: bool = False) -> np.ndarray | None:
    """The imported pose records, one per frame-table entry, if they still fit the mesh."""
    blob = stored_bytes(mesh, MDL_POSES)
    dtype = pose_dtype(num_vertices, sixteen)
    if blob is None or not num_entries or len(blob) != num_entries * dtype.itemsize:
        return None
    return np.frombuffer(blob, dtype=dtype)


def _poses(verts, match: np.ndarray, records: np.ndarray | None, fresh_normals, low=None,
           keep_normals: Callable[[], bool] = lambda: True):
    """Normals and bounding boxes per pose, kept from the import where the bytes (MD16: and the low
    bytes) are unchanged (the normals only while ``keep_normals()``, asked once some pose is: False
    when the shading was edited); ``fresh_normals(frames)`` gives the normal indices of other poses (of
    the vertices as written). Also whether kept poses got fresh normals."""
    count = len(match)
    normals = np.zeros(verts.shape[:2], np.uint8)
    bbox_min = np.zeros((count, 4), np.uint8)
    bbox_max = np.zeros((count, 4), np.uint8)
    kept = np.zeros(count, dtype=bool)
    relit = False
    if records is not None:
        has = np.flatnonzero(match >= 0)
        same = np.all(records["verts"]["v"][match[has]] == verts[has], axis=(1, 2))
        if low is not None:
            same &= np.all(records["low"]["v"][match[has]] == low[has], axis=(1, 2))
        kept[has[same]] = True
        source = match[kept]
        relit = bool(kept.any()) and not keep_normals()
        if not relit:
            normals[kept] = records["verts"]["normal_index"][source]
        bbox_min[kept], bbox_max[kept] = records["head"]["bbox_min"][source], records["head"]["bbox_max"][source]
    redo = np.flatnonzero(~kept)
    relight = np.arange(count) if relit else redo
    if len(relight):
        normals[relight] = fresh_normals(relight)
    if len(redo):
        by_axis = np.ascontiguousarray(verts[redo].transpose(0, 2, 1))    # (n, 3, V): a row of bytes per axis
        bbox_min[redo, :3] = by_axis.min(axis=2)      # (a reduction over runs of 3 strided values is ~25x slower)
        bbox_max[redo, :3] = by_axis.max(axis=2)
    return normals, bbox_min, bbox_max, kept, relit


def _slots(mesh, exported: ExportedFrames, kept, bbox_min, bbox_max) -> list[MdlFrameSlot]:
    """The frame list from the frame table: consecutive poses with the same group number form a
    group with their intervals, other poses are single frames. A group that is still the imported
    one (same poses, unchanged) keeps its stored bounding box."""
    try:
        stored = {(int(item["first"]), int(item["count"])): item for item in stored_json(mesh, MDL_FRAME_SLOTS) or []}
    except (KeyError, TypeError, ValueError):        # not the list the import wrote: no group keeps its box
        stored = {}
    match, table = exported.match, exported.table
    groups = np.array([table[m].group if m >= 0 else -1 for m in match], dtype=np.int64)
    intervals = np.array([table[m].interval if m >= 0 else 0.0 for m in match], dtype=np.float32)
    slots, f, count = [], 0, len(match)
    while f < count:
        if groups[f] < 0:
            slots.append(MdlFrameSlot(f, 1, None, bbox_min[f].copy(), bbox_max[f].copy()))
            f += 1
            continue
        end = f + 1
        while end < count and groups[end] == groups[f]:
            end += 1
        members = slice(f, end)
        item = stored.get((int(match[f]), end - f))
        unchanged = (item is not None and item["intervals"] is not None and kept[members].all()
                     and np.array_equal(match[members], np.arange(match[f], match[f] + end - f)))
        if unchanged:
            lo, hi = np.array(item["bbox_min"], np.uint8), np.array(item["bbox_max"], np.uint8)
        else:
            lo, hi = bbox_min[members].min(axis=0), bbox_max[members].max(axis=0)
        slots.append(MdlFrameSlot(f, end - f, intervals[members].copy(), lo, hi))
        f = end
    return slots


def _bounds(positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(min, max) per axis of every frame's (F, V, 3) positions, in their own precision: each axis reduced
    whole (any memory layout: the sampled positions are vertex-major), the same values as reducing all
    rows of three, which numpy does 20-30x slower."""
    axes = [positions[..., axis] for axis in range(3)]
    return np.array([a.min() for a in axes]), np.array([a.max() for a in axes])


def _radius_and_size(positions: np.ndarray, file_tris: np.ndarray,
                     bounds: tuple[np.ndarray, np.ndarray]) -> tuple[float, float]:
    """As id's modelgen: the farthest corner of ``bounds`` (every frame's); the first frame's mean
    triangle area."""
    lo, hi = (np.asarray(b, np.float64) for b in bounds)
    corner = np.maximum(np.abs(lo), np.abs(hi))
    p = positions[0].astype(np.float64)[file_tris]
    areas = 0.5 * np.linalg.norm(np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]), axis=1)
    return float(np.linalg.norm(corner)), float(areas.mean()) if len(areas) else 0.0


def _skins(obj, convert: SkinConverter, options: MdlExportOptions, limits: MdlLimits,
           info: list[str]) -> tuple[list[MdlSkin], int, int, bool]:
    """The skin slots, their width (a multiple of 4) and height, and whether the images were scaled
    down: images larger than the target's engine loads (Quake: 480 high and GLQuake's 640*480 pixels,
    :mod:`...formats.images.skin_limits`) are scaled down with the aspect kept, the report says to what;
    the size an imported MDL had is kept (its skins keep their palette indices). A material without an
    image gives a flat skin of its base colour (after the image skins, so skin 0 stays an image), no
    material at all one of Blender's grey; the warnings say so. New colours stay out of ``avoid``."""
    warnings = convert.warnings
    order = mdl_skin_slots(obj)
    first_images = next((pairs for _, pairs in order if pairs), None)
    settings = obj.classic_model
    if first_images:
        width, height = (int(x) for x in first_images[0][0].size)
    elif settings.skin_width and settings.skin_height:
        width, height = settings.skin_width, settings.skin_height
    else:
        width = height = DEFAULT_SKIN
    box = SkinBox(height=limits.skin_height, pixels=limits.skin_pixels)
    size, source_size = None, (width, height)
    imported = settings.source_format == "MDL" and (width, height) == (settings.skin_width, settings.skin_height)
    if first_images and not imported and not box.fits(width, height):
        size = fit_size(width, height, box, width_multiple=4)
        where = "modern source ports" if options.target == "MODERN" else "Quake"
        info.append(f"skin {width}x{height} is larger than {where} loads ("
                    f"{'; '.join(box.problems(width, height, 'skin'))}): scaled to {size[0]}x{size[1]}, aspect kept")
        width, height = size
    padded = -(-width // 4) * 4
    if padded != width and settings.source_format == "MDL" and width == settings.skin_width:
        warnings.append(f"skin width {width} is not a multiple of 4 (kept as in the imported file; "
                        "Quake refuses it)")
        padded = width
    elif padded != width:
        if options.skin_width_rule == "REFUSE":
            raise ExportError(f"{obj.name}: skin width {width} is not a multiple of 4, which Quake refuses")
        warnings.append(f"skin width {width} padded to {padded} (Quake needs a multiple of 4)")
    skins = []
    for material, pairs in order:
        if pairs is None:
            colour = FlatSkin.of(material, padded, height)
            skins.append(MdlSkin(None, convert.colours(colour.rgba(True), colour.label, dither=False)[None]))
            warnings.append(colour.message(f"{colour.label} has no image: skin {len(skins) - 1} is a flat skin of its "
                                           f"base colour {colour.colour[:3]}"))
            continue
        images, intervals = [], material.get(INTERVALS)
        for image, mask in pairs:
            if tuple(image.size) != source_size:
                raise ExportError(f"{obj.name}: skin image {quoted(image.name)} is {image.size[0]}x{image.size[1]}, "
                                  f"the model's skins are {source_size[0]}x{source_size[1]}")
            indices = convert.image(image, mask, size)
            images.append(np.pad(indices, ((0, 0), (0, padded - width))))
        group = intervals is not None and len(intervals) == len(images) and len(images) > 1
        if not group:
            images = images[:1]
        skins.append(MdlSkin(np.array(intervals, np.float32) if group else None, np.stack(images)))
    if not skins:
        grey = FlatSkin.of(None, padded, height)
        warnings.append(f"{obj.name} has no material: wrote a flat {padded}x{height} skin of Blender's grey "
                        f"{grey.colour[:3]}")
        skins.append(MdlSkin(None, convert.colours(grey.rgba(True), grey.label, dither=False)[None]))
    return skins, padded, height, size is not None


def _packed_skins(packed: PackedSkin, convert: SkinConverter) -> tuple[list[MdlSkin], int, int]:
    """One skin: each source converted to the palette on its own (an imported image keeps its
    indices, fullbright masks apply), then packed; a source scaled down to fit takes every n-th texel."""
    cells = []
    for source in packed.sources:
        if source.image is not None:
            indices = convert.image(source.image, source.mask)
            if source.fitted is not None:       # scaled down to fit: every n-th texel, indices and masks kept
                (w, h), (own_w, own_h) = source.fitted, source.own_size
                indices = indices[(np.arange(h) * own_h) // h][:, (np.arange(w) * own_w) // w]
            cells.append(indices)
        else:
            cells.append(convert.colours(source.rgba(), source.label))
    atlas = pack_images(cells, packed.layout, fill=0)
    return [MdlSkin(None, atlas[None])], packed.layout.width, packed.layout.height


def _check_limits(name, vertices, triangles, frames, names, height, limits: MdlLimits, options, skins: int,
                  own: dict[str, int]) -> str | None:
    """Counts against the target's limits (skins: MAX_SKINS, 32, Quake's Mod_LoadAllSkins), raised to the
    counts the imported file ``own`` had (:mod:`..imported_limits`; the warning for those is returned);
    frame names (None: a full 16-byte name written back from the file's own field) against their field,
    leaving room for the NUL."""
    where = _where(options.target == "MODERN", limits is HEXEN2_LIMITS)
    rows, allowed = within_own_file((("vertices", vertices, limits.vertices),
                                     ("triangles", triangles, limits.triangles), ("frames", frames, limits.frames),
                                     ("pixels of skin height", height, limits.skin_height),
                                     ("skins", skins, limits.skins)), own)
    refuse(f"{name}: cannot export as MDL: ",
           over_limits(tuple(rows), f"{where}'s limit")
           + name_problems("frame name", names, FRAME_NAME_SIZE, FIT_NAMES_HINT))
    return kept_warning(name, allowed, _ENGINES.get(where, {}), where)


def _where(modern: bool, hexen2: bool) -> str:
    return "modern source ports" if modern else "Hexen II" if hexen2 else "Quake"


_ENGINES = {"Quake": QUAKE_ENGINES, "Hexen II": {"vertices": ((HEXEN2_LIMITS.vertices, "Hexen II"),)}}


def _check_planned(planned: PlannedExport, options: MdlExportOptions) -> None:
    """The counts (and frame names) known before sampling, against the target's limits, with what to change."""
    modern = options.target == "MODERN"
    hexen2 = not modern and export_variant(planned.first, options.mdl_format) == RAPO
    limits = MODERN_LIMITS if modern else HEXEN2_LIMITS if hexen2 else LIMITS
    limit_text = f"{_where(modern, hexen2)}'s limit"
    own = own_counts(planned.first)
    rows, _ = within_own_file((("vertices", planned.vertices, limits.vertices),
                               ("triangles", planned.triangles, limits.triangles)), own)
    problems = over_limits(tuple(rows), limit_text)
    if problems and not modern and planned.vertices <= MODERN_LIMITS.vertices \
            and planned.triangles <= MODERN_LIMITS.triangles:
        problems[-1] += f" (Limits: Source Ports, command line: --target modern, allows {MODERN_LIMITS.vertices})"
    if planned.frames is not None and planned.frames > max(limits.frames, own.get("frames", 0)):
        fit = planned.fewer_frames(limits.frames)
        if not modern and planned.frames <= MODERN_LIMITS.frames:
            fit += f", or Limits: Source Ports (command line: --target modern) for up to {MODERN_LIMITS.frames}"
        problems.append(f"{over_limits((('frames', planned.frames, limits.frames),), limit_text)[0]}: {fit}")
    if planned.names is not None and not options.fit_names:
        problems += name_problems("frame name", planned.names, FRAME_NAME_SIZE, FIT_NAMES_HINT)
    refuse(f"{planned.label}: cannot export as MDL: ", problems)
