"""A model of tags alone (Quake III's ``*_hand.md3`` weapon files: a ``tag_weapon`` and no surface): no
mesh to sample, so its frames are an imported model's own (one per scene frame from where the import
put its first, named by the root's frame table), else the timeline's (the scene range, at the game rate
or every scene frame, named ``frameNN``)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import bpy

from ...common.frame_table import frame_table
from ...formats.message_text import quoted
from ..export_error import ExportError
from ..sampling.animated_mesh import ExportedFrames
from ..sampling.frame_rate import rate_report, scene_fps, timeline_frames, whole


@dataclass
class TagFrames:
    """What :func:`.build.build_md3` reads of a sampled model, for a model without surfaces."""
    label: str
    frames: list
    exported: ExportedFrames
    positions: np.ndarray                 # (F, 0, 3)
    info: list[str] = field(default_factory=list)
    rate: list[str] = field(default_factory=list)     # the report's line on the rate, as a sampled model's
    parts: list = field(default_factory=list)


def tag_frames(context: bpy.types.Context, root: bpy.types.Object | None, options) -> TagFrames:
    if options.frame_source != "TIMELINE":
        raise ExportError("a model of tags alone exports the timeline: Frames: Timeline")
    scene = context.scene
    table = frame_table(root) if root is not None else []
    offset = root.classic_model.frame_offset if root is not None and root.classic_model.source_format \
        else scene.frame_start
    # an imported model's own frames, one per scene frame from where the import put its first; else the timeline
    times = [offset + k for k in range(len(table))] if table and root.classic_model.source_format \
        else timeline_frames(scene, options.frame_rate)
    match = np.array([int(whole(t)) - offset if float(whole(t)) == t and 0 <= int(whole(t)) - offset < len(table)
                      else -1 for t in times], np.int64)
    names = [table[m].name if m >= 0 else f"frame{i + 1:02d}" for i, m in enumerate(match)]
    label = f"model {quoted(root.name)}" if root is not None else "the tags"
    return TagFrames(label, list(times), ExportedFrames(names, match, table), np.zeros((len(times), 0, 3)),
                     rate=[rate_report(scene_fps(scene), options.frame_rate, len(times))])
