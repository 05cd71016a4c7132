"""``info --frames`` (every frame: number, name, animation, MDL frame group) and ``info --qc``
(the QuakeC ``$frame`` lines), from the frame table :mod:`.inspect` read (bpy-free)."""
from __future__ import annotations

from ..formats.frame_scripts import qc_name_problems, qc_text
from ..formats.table import row as format_row
from .inspect import ModelInfo


def frame_lines(info: ModelInfo) -> list[str]:
    """One line per frame (a format of frame groups, as MDL: per pose, with its frame slot and group) under a
    header."""
    frames = info.frame_table
    if not frames:
        return [f"  frames: none listed for {info.format or 'this file'}"] if info.readable else []
    grouped_poses = format_row(info.format).frame_groups
    rows = [("frame", "pose", "name", "animation", "group")] if grouped_poses else [("frame", "name", "animation")]
    for anim in frames:
        for k, name in enumerate(anim.pose_names):
            pose = anim.first_pose + k
            if not grouped_poses:
                rows.append((str(pose), name, anim.name))
                continue
            frame = anim.first_frame if anim.grouped else anim.first_frame + k
            group = f"group of {len(anim.pose_names)}" if anim.grouped else "-"
            rows.append((str(frame), str(pose), name, anim.name, group))
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    count = sum(len(a.pose_names) for a in frames)
    lines = [f"  frames ({count} {'poses' if grouped_poses else 'frames'}):"]
    lines += ["    " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    return lines


def qc_lines(info: ModelInfo) -> list[str]:
    """The ``.qc`` text the export writes for this file, and what QuakeC cannot take in it."""
    if not info.frame_table:
        return []
    name = info.file.replace("\\", "/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    text = qc_text(info.frame_table, name).splitlines()
    return text + [f"// warning: {p}" for p in qc_name_problems(info.frame_table)]
