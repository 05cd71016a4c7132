"""``.md5scale``: Q2PRO's per-frame joint scales beside an ``.md5anim`` (the Quake II remaster's
``models/x/md5/tris.md5scale``), read and written as Q2PRO reads them (``src/refresh/models.c``
``MD5_LoadScales``, ``MD5_ParseAnim``, ``MD5_BuildFrameSkeleton``; ``src/refresh/mesh.c``
``calc_skel_vert``). docs/dev/format-facts.md, "MD5", says the same in prose.

Layout: one JSON object; each key a joint name, each value an object whose keys are frame numbers
(``Q_atoi`` of the key) with a number (``Q_atof``), or ``"scale_positions"`` with ``true``::

    {"gun": {"scale_positions": true, "0": 1.0, "4": 1.25}, "clip": {"3": 0.5}}

- Every joint's scale is 1 at every frame unless the file says otherwise; a name that is no joint of
  the anim and a frame number past the anim's frames are skipped with a warning.
- A frame's joint with scale ``s`` places each of its weights at ``joint.pos + s * rotate(joint.q,
  weight.pos)`` (the scale is not inherited by children); with ``scale_positions`` its position relative
  to its parent is also multiplied by its own ``s`` before the parent's pose is applied.
- Text the JSON tokenizer (jsmn, at most 4096 tokens) refuses, a top level that is not an object, a
  joint whose value is not an object, or a value that is not a primitive: Q2PRO prints "Invalid JSON
  data" and keeps what it had set until then (nothing for a tokenizer failure). An empty file sets nothing.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

import numpy as np

from ..errors import FormatError
from ..message_text import quoted

SCALE_SUFFIX = ".md5scale"
SCALE_POSITIONS = "scale_positions"
MAX_TOKENS = 4096                 # Q2PRO: jsmntok_t tokens[4096]
_LEADING_INT = re.compile(r"\s*([+-]?\d+)")


@dataclass
class Md5Scale:
    scales: np.ndarray                    # (F, J) float64, 1 where the file says nothing
    scale_positions: np.ndarray           # (J,) bool
    warnings: list[str] = field(default_factory=list)

    @property
    def is_identity(self) -> bool:
        return bool(np.all(self.scales == 1.0) and not self.scale_positions.any())


def identity_scale(num_frames: int, num_joints: int) -> Md5Scale:
    return Md5Scale(np.ones((num_frames, num_joints)), np.zeros(num_joints, bool))


def _atoi(text: str) -> int:
    match = _LEADING_INT.match(text)
    return int(match.group(1)) if match else 0


def _atof(value) -> float:
    """``Q_atof`` of a JSON primitive's text: a number's value, 0 for ``true``/``false``/``null``."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _pairs(pairs):
    return ("object", pairs)               # keeps order and repeated keys, as a token walk sees them


def _tokens(node) -> int:
    if isinstance(node, tuple):
        return 1 + sum(1 + _tokens(value) for _, value in node[1])
    if isinstance(node, list):
        return 1 + sum(_tokens(value) for value in node)
    return 1


def read_md5scale(data: bytes, joint_names: list[str], num_frames: int) -> Md5Scale:
    """The scales ``data`` gives the joints of an anim of ``num_frames`` frames (module docstring).
    What Q2PRO refuses is a warning in the result (the engine draws the model anyway)."""
    out = identity_scale(num_frames, len(joint_names))
    text = bytes(data).decode("utf-8", "replace")
    if not text.strip():
        return out
    invalid = "invalid JSON data: Q2PRO ignores the rest of the file"
    try:
        root = json.loads(text, object_pairs_hook=_pairs)
    except (ValueError, RecursionError):
        out.warnings.append("not valid JSON: Q2PRO applies none of its scales")
        return out
    if _tokens(root) > MAX_TOKENS:
        out.warnings.append(f"more than {MAX_TOKENS} JSON tokens (Q2PRO's limit): none of its scales is applied")
        return out
    if not isinstance(root, tuple):
        out.warnings.append("the top level is not a JSON object: Q2PRO applies none of its scales")
        return out
    index: dict[str, int] = {}
    for j, name in enumerate(joint_names):
        index.setdefault(name, j)
    unknown, past = [], []
    for name, value in root[1]:
        joint = index.get(name, -1)
        if joint < 0:
            unknown.append(name)
        if not isinstance(value, tuple):
            out.warnings.append(f"joint {quoted(name)}: its value is not an object; " + invalid)
            break
        bad = False
        for key, item in value[1]:
            if isinstance(item, (tuple, list, str)):
                bad = True
                break
            if joint < 0:
                continue
            if key == SCALE_POSITIONS:
                out.scale_positions[joint] = item is True
                continue
            frame = _atoi(key)
            if 0 <= frame < num_frames:
                out.scales[frame, joint] = np.float32(_atof(item))
            else:
                past.append(frame)
        if bad:
            out.warnings.append(f"joint {quoted(name)}: a value is not a number or true/false; " + invalid)
            break
    if unknown:
        out.warnings.append(f"{len(unknown)} name(s) are no joint of the anim: Q2PRO skips them, so the bones they "
                            "meant do not scale: " + ", ".join(quoted(n) for n in unknown[:5])
                            + "; use the anim's joint names")
    if past:
        out.warnings.append(f"{len(past)} frame number(s) past the anim's {num_frames} frames (skipped)")
    return out


def write_md5scale(joint_names: list[str], scale: Md5Scale) -> bytes:
    """The JSON of ``scale``: only the joints that scale (a scale other than 1 at float precision, as
    ``Q_atof`` reads it back, in some frame), each with its frames whose scale is not 1 and
    ``scale_positions`` when set. A joint left out keeps scale 1 in every frame (Q2PRO ``MD5_LoadScales``
    starts every joint at 1), so ``scale_positions`` alone, on a joint that never scales, changes nothing."""
    scales = np.asarray(scale.scales, np.float64)
    if scales.ndim != 2 or scales.shape[1] != len(joint_names):
        raise FormatError(f"scales must be (frames, {len(joint_names)} joints), got {scales.shape}", field="scales")
    if not np.isfinite(scales).all():
        raise FormatError("a joint scale is not finite", field="scales")
    lines = []
    stored = scales.astype(np.float32)           # what the file holds and Q2PRO reads
    for j, name in enumerate(joint_names):
        frames = np.flatnonzero(stored[:, j] != 1.0)
        if not len(frames):
            continue
        items = ([f'"{SCALE_POSITIONS}": true'] if scale.scale_positions[j] else [])
        items += [f'"{int(f)}": {float(stored[f, j]):.9g}' for f in frames]
        lines.append(f"  {json.dumps(name)}: {{" + ", ".join(items) + "}")
    return ("{\n" + ",\n".join(lines) + ("\n" if lines else "") + "}\n").encode("utf-8")
