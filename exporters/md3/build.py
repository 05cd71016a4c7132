"""Blender -> :class:`~...formats.md3.records.Md3Model`: surfaces, frames, tags, normals, limits.

Frames come from the pipeline MD2 and MDL use (:func:`..sampling.pipeline.sample_model`: Timeline,
Shape Keys or Actions, at the game rate or every scene frame); tags are read at the same times
(:mod:`.tag_sampling`). Coordinates are the model's: world space with *Apply Transform*, taken relative
to the model root when there is one (:mod:`.objects`), so a model placed anywhere in the scene writes
the same file. Positions go on the 1/64 grid (:func:`...formats.md3.vertices.encode_xyz`), normals are
Blender's (custom and split normals as it shades the mesh, :mod:`..sampling.shading`) encoded as the
lat/lng pair the renderer decodes nearest. An imported model whose data still encodes to its records is
written back with them (:mod:`.write_back`), so an untouched import exports the file it came from.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial

import numpy as np

import bpy

from ...common.import_shading import relit_report, shaded_as_imported
from ...common.md3.contract import MD3_DEGENERATE
from ...common.md3.surfaces import SurfaceRecords, mesh_surfaces
from ...formats.md3.limits import renderer_problems
from ...formats.md3.records import (
    FRAME_NAME_SIZE,
    MD3_MAX_FRAMES,
    MD3_MAX_SHADERS,
    MD3_MAX_SURFACES,
    MD3_MAX_TAGS,
    MD3_MAX_TRIANGLES,
    MD3_MAX_VERTS,
    NAME_SIZE,
    Md3Model,
)
from ...formats.md3.vertices import decode_xyz, encode_normals, encode_xyz
from ...formats.message_text import quoted
from ..export_error import ExportError
from ..imported_limits import kept_warning, within_own_file
from ..limits import name_problems, over_limits, refuse
from ..name_fitting import FIT_NAMES_HINT, fit_frame_names, fitted_report
from ..sampling.animated_mesh import all_finite
from ..sampling.frame_plan import carries_animation
from ..sampling.options import VertexModelOptions
from ..sampling.pipeline import sample_model
from ..sampling.planned import PlannedExport
from ..sampling.shading import shade_model, shaded_normals
from .frames import frame_bounds, keep_tags, radius_from_bounds, tag_transforms
from .objects import Md3Objects, collect, tag_name
from .surfaces import shader_images, split_surfaces, with_empty_surfaces
from .tag_sampling import frame_sources, sample_matrices
from .tags_only import tag_frames
from .write_back import frame_matches, kept_model, kept_table, own_span, picked


@dataclass
class Md3ExportOptions(VertexModelOptions):
    """Frame source, scale and transform (:class:`..sampling.options.VertexModelOptions`); ``skin_folder``
    the folder of new shader names (``models/mymodel``), ``model_name`` the header's name of a new model;
    ``lods`` writes the levels of detail an import put under the model root (:mod:`.lods`)."""
    skin_path: str = ""
    skin_folder: str = ""
    model_name: str = ""
    textures: str = "TGA"               # or "NAMES": write no texture files
    lods: bool = True                   # x_1.md3, x_2.md3 beside x.md3 from the LOD roots under its root
    render_icons: bool = False          # a player: render icon_<set> anew, not the icons an import kept


@dataclass
class BuildResult:
    model: Md3Model
    warnings: list[str] = field(default_factory=list)
    info: list[str] = field(default_factory=list)
    rate: list[str] = field(default_factory=list)  # the line on the rate: before ``info`` for a model of its own
    frames_kept: int = 0                 # frames whose every surface was written back as imported
    clipped: int = 0                     # vertex positions clipped to the 1/64 grid's range
    max_error: float = 0.0               # the largest distance of a written coordinate from Blender's
    frame_actions: list[str] = field(default_factory=list)   # Actions: the action each frame was sampled from
    frame_times: list = field(default_factory=list)          # the scene time each written frame was sampled at
    model_fps: float = 10.0              # model frames per second of game time (the plan's)
    surface_materials: list = field(default_factory=list)   # the material each surface stands for (or None)
    shader_images: dict = field(default_factory=dict)         # new shader name -> the image it names


def build_md3(context: bpy.types.Context, objects: list[bpy.types.Object], options: Md3ExportOptions,
              progress: Callable[[float], None] | None = None, space: bpy.types.Object | None = None) -> BuildResult:
    """The model of ``objects``; ``space``: the object whose frame the coordinates are taken in (a player
    part's parent tag), by default the model root (:mod:`.objects`), else the world."""
    found = collect(objects)
    if not found.meshes and not found.tags:
        raise ExportError("nothing to export: select at least one mesh object (tags are empties named tag_*)")
    _check_objects(found)
    if any(carries_animation(t) for t in found.tags) and not options.keep_still_frames:
        options = replace(options, keep_still_frames=True)      # moving tags are frames even on a still mesh
    if found.meshes:
        sampled = sample_model(context, found.meshes, options, "MD3", (), MD3_DEGENERATE,
                               check=partial(_check_planned, found=found, fit_names=options.fit_names))
        shading = shade_model(sampled, options.apply_transform, options.scale, options.split_normals)
        times, actions, still = frame_sources(sampled)
    else:
        sampled, shading = tag_frames(context, found.root, options), None
        times, actions, still = sampled.frames, None, False
    if progress:
        progress(0.4)
    match, names = frame_matches(context.scene, found.root, sampled)
    rows = own_span(match, len(kept_table(found.root)) if options.frame_source == "TIMELINE" else 0)
    sampled_positions = picked(sampled.positions, rows)
    times, match, names = [times[r] for r in rows], match[rows], [names[r] for r in rows]
    frames = len(rows)
    space = space if space is not None else found.root
    movers = ([space] if space is not None else []) + found.tags
    matrices = sample_matrices(context, movers, found.meshes, times, actions, still)
    to_model = _model_space(matrices[:, 0] if space is not None else None, frames)
    surfaces = with_empty_surfaces(found.meshes, split_surfaces(sampled, shading, options.skin_folder),
                                   options.skin_folder) if found.meshes else []
    own_note = _check_surfaces(sampled.label, surfaces, frames)
    kept = kept_model(found.root, found.meshes)

    positions = _transformed(sampled_positions, to_model, options.scale)
    result = BuildResult(model=None, info=list(sampled.info), rate=list(sampled.rate))  # type: ignore[arg-type]
    if len(rows) < len(sampled.positions):
        result.info.append(f"the model's own {frames} frames of the {len(sampled.positions)} the scene range holds "
                           "(a longer model shares the scene)")
    result.frame_times = [float(t) for t in times]
    if found.meshes:
        result.frame_actions = [sampled.frames[r].action for r in rows]
        result.model_fps = sampled.plan.model_fps
    xyz_all, normal_all, decoded, kept_frames = [], [], [], np.ones(frames, bool)
    relit: list[str] = []        # surfaces whose shading was edited since the import: normals computed afresh
    as_imported: dict[int, bool] = {}          # by object
    model_normals: tuple[bytes, np.ndarray] | None = None     # every vertex's normals, and the frames they are of
    for surface in surfaces:
        part = positions[:, surface.source]
        xyz, clipped = encode_xyz(part)
        result.clipped += clipped
        normal = np.zeros(xyz.shape[:2], np.uint16)
        same = kept.same_frames(surface, xyz, match)
        kept_frames &= same
        key = surface.obj.as_pointer()
        if same.any() and key not in as_imported:
            as_imported[key] = shaded_as_imported(surface.obj)
        lit = same if as_imported.get(key, True) else np.zeros_like(same)
        if same.any() and not lit.any() and surface.obj.name not in relit:
            relit.append(surface.obj.name)
        need = np.flatnonzero(~lit)
        if len(need):
            wanted = need.tobytes()     # the whole model's normals, worked out once, not once per surface
            if model_normals is None or model_normals[0] != wanted:
                model_normals = wanted, _model_normals(shaded_normals(sampled_positions[need], shading), to_model[need])
            normal[need] = encode_normals(model_normals[1][:, surface.source])
        kept.put_back(surface, normal, lit, match)
        xyz_all.append(xyz)
        normal_all.append(normal)
        decoded.append(decode_xyz(xyz))
        if surface.source.size:
            error = decoded[-1].astype(np.float64)
            error -= part
            result.max_error = max(result.max_error, float(error.max()), -float(error.min()))
    if progress:
        progress(0.8)
    bounds = frame_bounds(decoded, frames)
    origin = np.zeros((frames, 3), np.float32)
    radius = radius_from_bounds(bounds)
    frame_raw = kept.frame_name_fields(names, match)
    bounds, origin, radius, result.frames_kept = kept.frame_records(bounds, origin, radius, match, kept_frames)
    if relit:
        result.frames_kept = 0           # their records are the file's, their normals are not
    tag_names, tag_raw = zip(*(tag_name(t) for t in found.tags)) if found.tags else ((), ())
    tag_matrix = np.einsum("fij,ftjk->ftik", to_model, matrices[:, 1:] if space is not None else matrices)
    tag_origin, tag_axis = tag_transforms(tag_matrix, options.scale)
    tag_origin, tag_axis, tag_fields, _ = keep_tags(tag_origin, tag_axis, list(tag_names), list(tag_raw),
                                                    kept.tag_indices(found.tags), match, kept.tags)
    fitted: list[str] = []
    if options.fit_names:
        names, changes = fit_frame_names(names, FRAME_NAME_SIZE, [r is not None for r in frame_raw])
        fitted = [fitted_report("frame name", changes, FRAME_NAME_SIZE)] if changes else []
    refuse(f"{sampled.label}: cannot export as MD3: ",
           name_problems("frame name", [None if r is not None else n for n, r in zip(names, frame_raw)],
                         FRAME_NAME_SIZE, FIT_NAMES_HINT)
           + name_problems("tag name", [None if r is not None else n for n, r in zip(tag_names, tag_raw)], NAME_SIZE)
           + name_problems("surface name", [None if s.name_raw is not None else s.name for s in surfaces], NAME_SIZE)
           + name_problems("shader name", [sh.name for s in surfaces for sh in s.shaders if sh.name_raw is None],
                           NAME_SIZE))
    model = kept.model(
        name=kept.name if kept.name_raw is not None else options.model_name, frame_names=names, frame_bounds=bounds, frame_origin=origin,
        frame_radius=radius, frame_raw=frame_raw, tag_names=list(tag_names), tag_origin=tag_origin, tag_axis=tag_axis,
        tag_fields=tag_fields, surfaces=surfaces, xyz=xyz_all, normal=normal_all)
    result.model = model
    result.surface_materials = [s.material for s in surfaces]
    result.shader_images = shader_images(surfaces, options.skin_folder)
    result.warnings += fitted + ([own_note] if own_note else []) + [f"{sampled.label}: {p}" for p in renderer_problems(model)]
    if result.clipped:
        result.warnings.append(f"{result.clipped} vertex position(s) outside the MD3 range -512 .. 511.984 units "
                               "were clipped to it (scale the model down)")
    result.info.append(_grid_report(result, frames))
    if relit:
        result.info.append(relit_report(relit))
    if found.ignored:
        result.info.append(f"{len(found.ignored)} empt{'y' if len(found.ignored) == 1 else 'ies'} not named tag_* "
                           f"left out of the tags ({', '.join(quoted(n) for n in found.ignored[:3])})")
    result.info += kept.notes(model)
    if progress:
        progress(1.0)
    return result


def _grid_report(result: BuildResult, frames: int) -> str:
    kept = f"; {result.frames_kept} of {frames} frame(s) written back as imported" if result.frames_kept else ""
    return (f"MD3 grid: positions in steps of 1/64 unit, largest error {result.max_error:.4g} units "
            f"(half a step is {1 / 128:.4g}){kept}")


def _model_space(root: np.ndarray | None, frames: int) -> np.ndarray:
    """(F, 4, 4) world -> model matrices: the inverse of the model root's world matrix at each frame."""
    if root is None:
        return np.broadcast_to(np.eye(4), (frames, 4, 4)).copy()
    try:
        return np.linalg.inv(root)
    except np.linalg.LinAlgError as exc:
        raise ExportError("the model root's transform cannot be inverted (a zero scale)") from exc


def _transformed(positions: np.ndarray, to_model: np.ndarray, scale: float) -> np.ndarray:
    """Sampled positions (world x scale) in model space x scale."""
    if np.array_equal(to_model, np.broadcast_to(np.eye(4), to_model.shape)):
        return np.asarray(positions, np.float64)
    linear = to_model[:, :3, :3]
    moved = _times(np.asarray(positions, np.float64), linear, "fvk,fjk->fvj")
    moved += to_model[:, None, :3, 3] * scale
    return moved


def _times(vectors: np.ndarray, linear: np.ndarray, subscripts: str) -> np.ndarray:
    """``np.einsum(subscripts, vectors, linear)`` for (F, V, 3) vectors and (F, 3, 3) maps. A map with
    nothing off its diagonal (a root only scaled, the usual case) scales each coordinate: einsum sums
    the three products from +0, so a coordinate is its one product, or +0 where that is a zero of
    either sign; ``product + 0.0`` is that, the same bits, at a tenth of einsum's cost."""
    diagonal = np.diagonal(linear, axis1=1, axis2=2)
    if np.count_nonzero(linear) == np.count_nonzero(diagonal) and all_finite(vectors):
        product = vectors * diagonal[:, None, :]
        product += 0.0
        return product
    return np.einsum(subscripts, vectors, linear)


def _model_normals(normals: np.ndarray, to_model: np.ndarray) -> np.ndarray:
    """Normals carried into model space by the inverse transpose of each frame's linear map."""
    if np.array_equal(to_model, np.broadcast_to(np.eye(4), to_model.shape)):
        return normals
    carry = np.linalg.inv(to_model[:, :3, :3])               # (M^-1)^T applied to row vectors: n @ M^-1
    out = _times(normals.astype(np.float64), carry, "fvk,fkj->fvj")
    return out / np.maximum(np.linalg.norm(out, axis=-1, keepdims=True), 1e-300)


def _own_counts(records: SurfaceRecords | None) -> tuple[int, int]:
    """(vertices, triangles) the imported surface had in its file (0, 0 for a mesh made in Blender)."""
    return (records.num_verts, records.num_triangles) if records is not None else (0, 0)


def _own_vertices(mesh: bpy.types.Object) -> int:
    """The vertices the mesh's imported surfaces had in their file (0 for a mesh made in Blender)."""
    return sum(r.num_verts for r in mesh_surfaces(mesh.data))


def _check_objects(found: Md3Objects) -> None:
    """What is known before anything is evaluated: tags per model, surfaces, vertices per mesh (an
    imported surface may keep the count its own file had, :mod:`..imported_limits`)."""
    problems = over_limits((("tags", len(found.tags), MD3_MAX_TAGS),))
    if len(found.meshes) > MD3_MAX_SURFACES:
        problems += over_limits((("surfaces", len(found.meshes), MD3_MAX_SURFACES),))
    big = [o for o in found.meshes if not o.modifiers
           and len(o.data.vertices) > max(MD3_MAX_VERTS, _own_vertices(o))]
    if big:
        problems.append(f"mesh {quoted(big[0].name)} has {len(big[0].data.vertices)} vertices, over the limit of "
                        f"{MD3_MAX_VERTS} per surface (MD3_MAX_VERTS): split it into several objects")
    label = found.meshes[0].name if len(found.meshes) == 1 else f"{len(found.meshes) + len(found.tags)} objects"
    refuse(f"{quoted(label)}: cannot export as MD3: ", problems)


def _check_planned(planned: PlannedExport, found: Md3Objects, fit_names: bool) -> None:
    """The frame count (and names) known before sampling, against MD3_MAX_FRAMES."""
    problems = []
    if planned.frames is not None and planned.frames > MD3_MAX_FRAMES:
        problems.append(f"{over_limits((('frames', planned.frames, MD3_MAX_FRAMES),))[0]}: "
                        f"{planned.fewer_frames(MD3_MAX_FRAMES)}")
    if planned.names is not None and not fit_names:
        problems += name_problems("frame name", planned.names, FRAME_NAME_SIZE, FIT_NAMES_HINT)
    refuse(f"{planned.label}: cannot export as MD3: ", problems)


def _check_surfaces(label: str, surfaces: list, frames: int) -> str | None:
    """Counts after the split at UV seams, before any position is encoded; an imported surface may keep
    the vertices and triangles its file had (the warning for those is returned)."""
    problems = over_limits((("surfaces", len(surfaces), MD3_MAX_SURFACES), ("frames", frames, MD3_MAX_FRAMES)))
    allowed_all = []
    for s in surfaces:
        verts, tris = _own_counts(s.records) if s.whole else (0, 0)
        rows, allowed = within_own_file((("vertices", len(s.source), MD3_MAX_VERTS),
                                         ("triangles", len(s.triangles), MD3_MAX_TRIANGLES),
                                         ("shaders", len(s.shaders), MD3_MAX_SHADERS)),
                                        {"vertices": verts, "triangles": tris})
        problems += [f"surface {quoted(s.name)}: {p}" for p in over_limits(tuple(rows))]
        allowed_all += allowed
    refuse(f"{label}: cannot export as MD3: ", problems)
    return kept_warning(label, allowed_all, {}, "Quake III")
