"""MilkShape joints: parents by name as MilkShape resolves them, key times on the timeline (bpy-free)."""
from __future__ import annotations

import numpy as np

from ..message_text import quoted
from .records import Ms3dModel


def _name_key(raw: bytes) -> bytes:
    return bytes(raw).split(b"\0", 1)[0]


def joint_parents(model: Ms3dModel) -> tuple[list[int], list[str]]:
    """Parent index of each joint (-1 = root) and warnings.

    A parent is the first joint with that name (compared as bytes up to the NUL, as MilkShape's
    ``strcmp`` does). An empty name or ``none`` makes a root; an unknown name, a joint naming itself
    or a cycle also makes a root, with a warning.
    """
    first: dict[bytes, int] = {}
    for j, joint in enumerate(model.joints):
        first.setdefault(_name_key(joint.name_raw), j)
    parents, warnings = [], []
    for j, joint in enumerate(model.joints):
        key = _name_key(joint.parent_raw)
        p = first.get(key)
        if p is None:
            if key and key.lower() != b"none":
                warnings.append(f"joint {quoted(joint.name)} has unknown parent {quoted(joint.parent)}: made a root")
            p = -1
        elif p == j:
            warnings.append(f"joint {quoted(joint.name)} names itself as its parent: made a root")
            p = -1
        parents.append(p)
    for j in range(len(parents)):
        seen, k = set(), j
        while k != -1 and k not in seen:
            seen.add(k)
            k = parents[k]
        if k != -1:
            warnings.append(f"joint {quoted(model.joints[k].name)} is its own ancestor: made a root")
            parents[k] = -1
    return parents, warnings


def key_frames(times: np.ndarray, fps: float) -> np.ndarray:
    """Scene frames of key times: t × fps, a whole frame where that gives back the same float32 time."""
    t = np.asarray(times, dtype=np.float32)
    frames = t.astype(np.float64) * fps
    whole = np.rint(frames)
    exact = (np.abs(frames - whole) < 1e-3) & ((whole / fps).astype(np.float32) == t)
    return np.where(exact, whole, frames.astype(np.float32).astype(np.float64))


def last_frame(model: Ms3dModel, fps: float) -> int:
    """The last scene frame the importer's timeline shows: the file's total frames or its latest key
    (key time x fps), at least 1."""
    latest = 1.0
    for joint in model.joints:
        for keys in (joint.rot_keys, joint.pos_keys):
            if len(keys):
                latest = max(latest, float((keys[:, 0].astype(np.float64) * fps).max()))
    return max(int(model.total_frames), int(np.ceil(latest - 1e-3)), 1)
