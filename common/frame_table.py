"""The file's frame table on the object (``Object.classic_model.frames``): written by the import,
read by the export.

Entry i is file frame i (MDL: pose i) in file order: the name the export writes (editable in the
sidebar), the name as the file stored it, the shape key that holds the frame, and for MDL the
frame group it belongs to (-1: a single frame) and its interval. A file's frames are found by
index and by the key name recorded at import, never by shape-key names alone: Blender makes key
names unique (``run1``, ``run1.001``) and users rename keys.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import bpy

from .contract import FRAME_NAMES, MD3_ROOT


@dataclass
class FrameEntry:
    name: str
    file_name: str
    shape_key: str
    group: int = -1
    interval: float = 0.0


def record_frame_table(obj: bpy.types.Object, names: list[str], keys: list[bpy.types.ShapeKey],
                       groups: list[int] | None = None, intervals: list[float] | None = None) -> None:
    """Store one entry per file frame; ``keys[i]`` is the shape key holding frame i."""
    frames = obj.classic_model.frames
    frames.clear()
    for i, (name, key) in enumerate(zip(names, keys)):
        item = frames.add()
        item.name = item.file_name = name
        item.shape_key = key.name
        if groups is not None:
            item.group = groups[i]
        if intervals is not None:
            item.interval = intervals[i]


def table_owner(obj: bpy.types.Object) -> bpy.types.Object:
    """The object holding ``obj``'s file frame table and its import settings (source format, first frame):
    ``obj`` itself, or for a surface of an MD3 import, which keeps its table on the model root
    (:mod:`.contract`, ``# MD3``), that root."""
    if len(obj.classic_model.frames) or obj.type != "MESH":
        return obj
    parent = obj.parent
    while parent is not None:
        if parent.get(MD3_ROOT) is not None:
            return parent
        parent = parent.parent
    return obj


def frame_table(obj: bpy.types.Object) -> list[FrameEntry]:
    """The object's frame table (an MD3 surface's: its model root's); for objects imported before the
    table existed, the stored names."""
    frames = table_owner(obj).classic_model.frames
    if len(frames):
        return [FrameEntry(f.name, f.file_name, f.shape_key, f.group, f.interval) for f in frames]
    legacy = obj.data.get(FRAME_NAMES) if obj.type == "MESH" else None
    return [FrameEntry(str(n), str(n), str(n)) for n in (legacy or [])]


def entries_of_keys(table: list[FrameEntry], key_names: list[str]) -> dict[int, int]:
    """Key block index (0 = Basis) -> table entry: by the key name recorded at import, else, for a
    key whose recorded name is gone (renamed), by position (entry i was key i + 1)."""
    present = set(key_names)
    by_name = {entry.shape_key: i for i, entry in enumerate(table)}
    out: dict[int, int] = {}
    for k, name in enumerate(key_names[1:], 1):
        if (i := by_name.get(name)) is not None:
            out[k] = i
    claimed = set(out.values())
    for k in range(1, len(key_names)):
        i = k - 1
        if k not in out and i < len(table) and i not in claimed and table[i].shape_key not in present:
            out[k] = i
            claimed.add(i)
    return out


def match_frames(obj: bpy.types.Object, table: list[FrameEntry], positions_in_table: list[int | None],
                 key_indices: list[int | None]) -> np.ndarray:
    """For each exported frame, the table entry it is (-1: a frame the file did not have).

    A frame that is exactly one shape key is that key's entry; any other frame is the entry at its
    position in the file (``positions_in_table``: timeline frame minus the import's first frame)."""
    key = obj.data.shape_keys if obj.type == "MESH" else None
    by_key = entries_of_keys(table, [b.name for b in key.key_blocks]) if key is not None and table else {}
    out = np.full(len(key_indices), -1, dtype=np.int64)
    for f, (k, position) in enumerate(zip(key_indices, positions_in_table)):
        if k:
            out[f] = by_key.get(k, -1)
        elif position is not None and 0 <= position < len(table):
            out[f] = position
    return out


def own_frame_span(obj: bpy.types.Object, frames: list[int], key_indices: list[int | None]) -> slice | None:
    """The stretch of the sampled scene ``frames`` (consecutive) that plays the object's own file
    frames, when the scene range is longer than them only because a longer model shares the scene
    (a Quake II player's weapon models): each of its frames is exactly its own entry in file order
    (``key_indices``: the key each sampled frame equals) and the frames outside only hold its first
    or last frame. None when the range is the object's own, does not cover it, or anything was
    re-timed or edited there (then the scene range is what the user asks for)."""
    table = frame_table(obj)
    key = obj.data.shape_keys if obj.type == "MESH" else None
    settings = table_owner(obj).classic_model
    if not table or key is None or not settings.source_format or not frames:
        return None
    count, offset = len(table), settings.frame_offset
    first = next((i for i, f in enumerate(frames) if abs(f - offset) < 1e-4), None)   # sampled every 2.4 frames too
    if len(frames) <= count or first is None or first + count > len(frames):
        return None
    by_key = entries_of_keys(table, [b.name for b in key.key_blocks])
    entries = [by_key.get(k, -1) if k else -1 for k in key_indices]
    if (entries[first:first + count] != list(range(count)) or any(e != 0 for e in entries[:first])
            or any(e != count - 1 for e in entries[first + count:])):
        return None
    return slice(first, first + count)
