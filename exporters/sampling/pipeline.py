"""The export path MD2 and MDL share: sample the mesh objects once with one options object, name
the frames, merge the parts into one mesh. The builders quantise, pick normals and pack skins on
what :func:`sample_model` hands back.

    options ──► sample_parts (timeline | shape keys | actions, at the game rate or every scene
                frame; one topology) ──► still_frames (one frame if nothing moves) ──► exported_frames
                ──► merged
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import bpy

from .animated_mesh import ExportedFrames, MeshPart, exported_frames, merged, sample_parts
from .frame_rate import rate_report
from .options import FrameExportOptions
from .still_frames import still_frames


@dataclass
class SampledModel:
    """Every exported frame of the objects, as one mesh, with its frame names."""
    parts: list[MeshPart]          # one per mesh object, in export order
    frames: list                   # the scene frame each exported frame was sampled at (subframes at the game rate)
    exported: ExportedFrames       # names and the file frame each frame was (if any)
    positions: np.ndarray          # (F, V, 3) every part's vertices, file units
    triangles: np.ndarray          # (T, 3) counter-clockwise (Blender order)
    uvs: np.ndarray                # (T, 3, 2) corner UVs
    info: list[str] = field(default_factory=list)   # notes for the report

    @property
    def first(self) -> bpy.types.Object:
        return self.parts[0].obj

    @property
    def frames_evaluated(self) -> int:
        return sum(p.frames_evaluated for p in self.parts)


def sample_model(context: bpy.types.Context, objects: list[bpy.types.Object], options: FrameExportOptions,
                 format_name: str, int_attributes: tuple[str, ...] = (), kept_triangles: str = "") -> SampledModel:
    """The mesh objects of ``objects`` sampled at the frames ``options`` asks for, named and merged.

    ``int_attributes``: integer mesh attributes the format keeps (read with the topology);
    ``kept_triangles``: the mesh property holding a file's degenerate triangles (a mesh without faces
    is refused unless it has them)."""
    parts, frames = sample_parts(context, objects, options, format_name, int_attributes, kept_triangles)
    sampled = len(frames)
    parts, frames, still = still_frames(parts, frames, options)
    exported = exported_frames(context.scene, parts[0], frames, options)
    positions, triangles, uvs = merged(parts)
    info = [] if options.frame_source == "SHAPE_KEYS" else [rate_report(context.scene, options.frame_rate, sampled)]
    info += [still] if still else []
    return SampledModel(parts, frames, exported, positions, triangles, uvs, info)
