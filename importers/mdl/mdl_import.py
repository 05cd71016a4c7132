"""Quake MDL -> Blender: one mesh object per file, a shape key per pose, paletted skins.

Vertex i is file vertex i, triangle i is polygon i with its corners reversed (clockwise in the
file; docs/dev/format-facts.md, "Shared by MD2 and MDL"). MDL has one texture coordinate per vertex; a corner of a triangle
with ``facesfront == 0`` whose vertex is ``onseam`` uses ``s + skinwidth / 2``, and every corner sits
at its texel centre: ``u = (s + 0.5) / w``, ``v = 1 - (t + 0.5) / h``.
Frame groups keep all their poses in file order; every pose is one scene frame. What Blender has
no place for is kept for export: the file's poses (``mdl_poses``), grid (``mdl_grid``), frame
structure (``mdl_frame_slots``), per-vertex texture records (point attributes ``mdl_onseam``,
``mdl_s``, ``mdl_t``) and per-triangle ``mdl_facesfront``.
MD16 poses decode at 16 bits (their low bytes stay in the stored pose records); a RAPO's corners read
their own texcoord table through ``stindex`` (kept as ``mdl_st`` and corner attribute
``mdl_st_index``); the object's ``["mdl_variant"]`` names the flavour (see formats/mdl/variants.py).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import bpy

from ...common.file_counts import record_counts
from ...common.generated_names import mark_made
from ...common.import_shading import record_import_shading
from ...common.mdl.contract import (
    DEGENERATE_MDL,
    DEGENERATE_MDL_ST,
    FACESFRONT,
    MDL_DEGENERATE,
    MDL_DEGENERATE_ST,
    MDL_FRAME_SLOTS,
    MDL_GRID,
    MDL_PALETTE,
    MDL_POSES,
    MDL_SCALE,
    MDL_ST,
    MDL_ST_INDEX,
    MDL_TAIL,
    MDL_VARIANT,
    TEXCOORD_ATTRIBUTES,
)
from ...common.mdl_skins import read_palette, skin_slot_material
from ...formats.animations import slot_animations
from ...formats.anorms import anorms
from ...formats.errors import FormatError
from ...formats.mdl.codec import MdlModel, parse_mdl, pose_dtype, pose_name_fields
from ...formats.mdl.variants import MD16, RAPO, TEXCOORD
from ..build_mesh import build_triangle_mesh, faced_triangles, set_custom_normals
from ..file_source import ModelSource, as_source, remember_source
from ..frame_animation import play_frames_on_timeline
from ..results import ImportResult
from ..scene_timing import plan_timing, timing_note
from ..transaction import datablock_transaction

MDL_FPS = 10


@dataclass
class MdlImportOptions:
    scale: float = 1.0
    use_file_normals: bool = False
    load_skins: bool = True
    palette_path: str = ""          # a 768-byte palette lump; empty = the built-in ``palette``
    palette: str = ""               # 'QUAKE', 'HEXEN2' or 'FILE' (palette_path); '' by flavour: Hexen II's
                                    # for RAPO (only Hexen II loads it), Quake's for the others
    animations: str = "TIMELINE"     # or "ACTIONS": one shape-key action per animation or frame group
    scene_timing: str = "AUTO"       # 'AUTO', 'SET' or 'KEEP': see scene_timing.py


def read_mdl(path: Path | ModelSource) -> MdlModel:
    source = as_source(path)
    try:
        return parse_mdl(source.read())
    except FormatError as exc:
        raise exc.with_filename(source.where)



def corner_uvs(model: MdlModel, triangles: np.ndarray, facesfront: np.ndarray) -> np.ndarray:
    """(T * 3, 2) UVs for (T, 3) texcoord indices (vertex indices; RAPO: stindex), any corner order,
    with the seam rule."""
    back_seam = (model.onseam[triangles] != 0) & (facesfront[:, None] == 0)
    s = model.s[triangles] + np.where(back_seam, model.skin_width // 2, 0)
    u = (s.astype(np.float64) + 0.5) / model.skin_width
    v = 1.0 - (model.t[triangles].astype(np.float64) + 0.5) / model.skin_height
    return np.stack([u, v], axis=-1).reshape(-1, 2).astype(np.float32)


def import_mdl(context: bpy.types.Context, path: Path | ModelSource, options: MdlImportOptions) -> ImportResult:
    """Read ``path`` (a file or an archive member, see :mod:`..file_source`) and build its object in the
    active collection; all or nothing."""
    source = as_source(path)
    model = read_mdl(source)
    result = ImportResult(warnings=[f"{source.label}: {w}" for w in model.warnings()])
    palette = None
    if options.load_skins and (options.palette or options.palette_path):
        palette = read_palette(options.palette_path, options.palette or "QUAKE")
    folder_palette = None
    if options.load_skins and not (options.palette or options.palette_path) and model.skins:
        choice = source.palette(model.variant == RAPO)     # left alone: the palette the game folder says
        palette = choice.palette
        folder_palette = choice.palette if choice.game != "QUAKE" else None
        result.infos.append(f"{source.label}: skins decoded with {choice.name}")
    positions = model.positions()
    if options.scale != 1.0:
        positions *= np.float32(options.scale)
    scene = context.scene
    timing = plan_timing(scene, options.scene_timing)
    with datablock_transaction(scene):
        obj = _build_object(model, source, positions[0], options, result)
        if palette is not None:
            for i, skin in enumerate(model.skins):
                obj.data.materials.append(skin_slot_material(f"{source.stem}_skin{i}", skin, palette))
        groups, intervals = pose_groups(model)
        play_frames_on_timeline(context, obj, "MDL", model.pose_names, positions, slot_animations(model),
                                MDL_FPS, f"{source.stem}_frames", timing, groups, intervals,
                                mode=options.animations)
        if folder_palette is not None:          # the export converts back to it while Palette is left alone
            obj[MDL_PALETTE] = folder_palette.tobytes()
        _keep_header(obj.classic_model, model)
        remember_source(obj, source)
        context.view_layer.active_layer_collection.collection.objects.link(obj)
    if note := timing_note(source.label, timing, MDL_FPS):
        result.infos.append(note)
    result.objects.append(obj)
    return result


def _build_object(model: MdlModel, source: ModelSource, first_pose: np.ndarray, options: MdlImportOptions,
                  result: ImportResult) -> bpy.types.Object:
    keep = faced_triangles(source.label, model.triangles, result.warnings)
    corners = model.triangles[keep][:, ::-1]
    rapo = model.variant == RAPO
    st_corners = model.st_triangles[keep][:, ::-1] if rapo else corners
    facesfront = model.facesfront[keep]
    mesh = build_triangle_mesh(source.stem, first_pose, corners, corner_uvs(model, st_corners, facesfront))
    mesh.attributes.new(FACESFRONT, "INT", "FACE").data.foreach_set("value", facesfront.astype(np.int32))
    if rapo:
        st_index = mesh.attributes.new(MDL_ST_INDEX, "INT", "CORNER")
        st_index.data.foreach_set("value", st_corners.ravel().astype(np.int32))
        records = np.zeros(len(model.s), TEXCOORD)
        records["onseam"], records["s"], records["t"] = model.onseam, model.s, model.t
        mesh[MDL_ST] = records.tobytes()
    else:
        for name, values in zip(TEXCOORD_ATTRIBUTES, (model.onseam, model.s, model.t)):
            mesh.attributes.new(name, "INT", "POINT").data.foreach_set("value", values.astype(np.int32))
    if options.use_file_normals:
        set_custom_normals(mesh, anorms()[np.minimum(model.pose_normals[0], 161)])
    record_import_shading(mesh)
    poses = np.zeros(model.num_poses, pose_dtype(model.num_vertices, model.variant == MD16))
    poses["head"]["bbox_min"], poses["head"]["bbox_max"] = model.pose_bbox_min, model.pose_bbox_max
    poses["verts"]["v"], poses["verts"]["normal_index"] = model.pose_verts, model.pose_normals
    if model.variant == MD16:
        poses["low"]["v"], poses["low"]["normal_index"] = model.pose_low[..., :3], model.pose_low[..., 3]
    poses["head"]["name"] = pose_name_fields(model)
    mesh[MDL_POSES] = poses.tobytes()
    record_counts(mesh, vertices=model.num_vertices, triangles=len(model.triangles), frames=model.num_poses,
                  skins=len(model.skins), pixels_of_skin_height=model.skin_height)
    if not keep.all():
        kept = np.zeros(int((~keep).sum()), dtype=DEGENERATE_MDL)
        kept["index"], kept["facesfront"] = np.flatnonzero(~keep), model.facesfront[~keep]
        kept["vertices"] = model.triangles[~keep]
        mesh[MDL_DEGENERATE] = kept.tobytes()
        if rapo:
            kept_st = np.zeros(len(kept), dtype=DEGENERATE_MDL_ST)
            kept_st["st"] = model.st_triangles[~keep]
            mesh[MDL_DEGENERATE_ST] = kept_st.tobytes()
    mesh[MDL_GRID] = [float(x) for x in (*model.scale, *model.translate)]
    if model.tail_record is not None:
        mesh[MDL_TAIL] = model.tail_record
    mesh[MDL_FRAME_SLOTS] = json.dumps([
        {"first": s.first_pose, "count": s.num_poses,
         "intervals": None if s.intervals is None else [float(x) for x in s.intervals],
         "bbox_min": s.bbox_min.tolist(), "bbox_max": s.bbox_max.tolist()} for s in model.frames])
    mesh[MDL_SCALE] = options.scale
    obj = bpy.data.objects.new(source.stem, mesh)
    mark_made(obj)
    obj[MDL_VARIANT] = model.variant
    return obj


def pose_groups(model: MdlModel) -> tuple[list[int], list[float]]:
    """Per pose: the index of its frame group in the frame list (-1 for a single frame) and its interval."""
    groups, intervals = [], []
    for g, slot in enumerate(model.frames):
        single = slot.intervals is None
        groups += [-1 if single else g] * slot.num_poses
        intervals += [0.0] * slot.num_poses if single else [float(x) for x in slot.intervals]
    return groups, intervals


def _keep_header(settings, model: MdlModel) -> None:
    """Header fields Blender has no place for, editable in the sidebar and written back on export."""
    settings.skin_width, settings.skin_height = model.skin_width, model.skin_height
    settings.mdl_flags = int(np.int32(model.flags))
    settings.mdl_synctype = "RAND" if model.synctype == 1 else "SYNC"
    settings.mdl_eye_position = tuple(float(x) for x in model.eye_position)
    settings.mdl_bounding_radius = model.bounding_radius
    settings.mdl_size = model.size
