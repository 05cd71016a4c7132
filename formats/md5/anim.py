"""``.md5anim`` reader: text -> :class:`~.records.Md5Anim` (layout in :mod:`.records`).

Refused (:class:`~..errors.FormatError` with the line), as Q2PRO ``MD5_ParseAnim`` and ironwail
``MD5Anim_Load`` refuse it: a version other than 10; a missing keyword, brace or parenthesis; a
non-number; ``numFrames`` or ``numJoints`` below 1 (ironwail: "has no poses"); a parent outside
-1 .. i-1 (Q2PRO "Bad parent joint": parents come first); a joint whose flagged components run past
``numAnimatedComponents`` (Q2PRO "Bad joint info"); flags above 63 (ironwail "unsupported flags"); a
frame number outside ``numFrames`` or given twice; fewer or more frame blocks than ``numFrames``; a
frame with other than ``numAnimatedComponents`` numbers.

Read with a warning: ``bounds`` with a count other than ``numFrames`` (Red Eclipse's grenade-idle has
10 for 1 frame): ironwail reads ``( ... ) ( ... )`` pairs while they come, Q2PRO and FTE read exactly
``numFrames`` and refuse the file; frames out of order (FTE wants ``frame 0``, ``frame 1`` ...).
``frameRate`` is read as a number (ironwail skips it, FTE keeps it as the group's rate).
"""
from __future__ import annotations

import numpy as np

from ..message_text import quoted
from .limits import anim_warnings
from .mesh import indexed, read_header, source_of
from .records import ALL_FLAGS, Md5Anim
from .text import NUMBER_COLUMN, Md5Text

_VECTOR_PAIR = (b"(", float, float, float, b")", b"(", float, float, float, b")")


def _pairs(text: Md5Text, what: str, count: int | None) -> np.ndarray:
    """``( x y z ) ( x y z )`` records up to the closing brace: exactly ``count``, or as many as come."""
    text.expect(what.encode())
    text.expect(b"{")
    if count is None:
        count, tokens, quoted, size = 0, text.tokens, text.quoted, len(text.tokens)
        while text.pos + count * 10 < size and tokens[text.pos + count * 10] == b"(" \
                and not quoted[text.pos + count * 10]:
            count += 1
    block = text.records(count, _VECTOR_PAIR, what)
    text.expect(b"}")
    values = block[:, [1, 2, 3, 6, 7, 8]].astype(np.float64) if count else np.zeros((0, 6))
    return values.reshape(count, 2, 3)


def read_md5anim(data: bytes) -> Md5Anim:
    """Decode an ``.md5anim``; raises :class:`~..errors.FormatError` (with the line) for bad text."""
    text = Md5Text(data, "md5anim")
    warnings: list[str] = []
    header = read_header(text, warnings)
    text.expect(b"numFrames")
    num_frames = text.integer("numFrames", 1)
    text.expect(b"numJoints")
    num_joints = text.integer("numJoints", 1)
    text.expect(b"frameRate")
    frame_rate = text.number("frameRate")
    text.expect(b"numAnimatedComponents")
    num_components = text.integer("numAnimatedComponents", 0)
    # every frame needs its number, braces and components: refuse counts the text cannot hold
    if num_frames * (num_components + 4) + num_joints * 14 > text.left():
        raise text.error(f"{num_frames} frames of {num_components} components and {num_joints} joints announced, "
                         f"but only {text.left()} tokens follow")
    text.expect(b"hierarchy")
    text.expect(b"{")
    start = text.pos
    block = text.records(num_joints, (None, int, int, int), "joint")
    names = [text.tokens[start + i * 4].decode(text.encoding) for i in range(num_joints)]
    numbers = block[:, 1:].astype(np.int64)
    parents, flags, first = numbers[:, 0], numbers[:, 1], numbers[:, 2]
    for row in range(num_joints):
        at = start + row * 4
        if not -1 <= parents[row] < row:
            allowed = "-1: the first joint is a root" if row == 0 else f"-1 .. {row - 1}: a parent comes before its child"
            raise text.error(f"joint {row} {quoted(names[row])} has parent {int(parents[row])}, expected {allowed} "
                             "(Q2PRO refuses any other, and a joint that is its own ancestor); list the parent first "
                             "or make the joint a root", at + 1)
        if flags[row] & ~ALL_FLAGS or flags[row] < 0:
            raise text.error(f"joint {row} has flags {int(flags[row])}, expected 0 .. 63 (Tx Ty Tz Qx Qy Qz)", at + 2)
        used = bin(int(flags[row])).count("1")
        if first[row] < 0 or first[row] + used > num_components:
            raise text.error(f"joint {row} takes components {int(first[row])} .. {int(first[row]) + used - 1}, "
                             f"outside the {num_components} animated components", at + 3)
    text.expect(b"}")
    bounds = _pairs(text, "bounds", None)
    if len(bounds) != num_frames:
        boxes = f"{len(bounds)} bounding box{'es' if len(bounds) != 1 else ''}"
        warnings.append(f"{boxes} for {num_frames} frame{'s' if num_frames != 1 else ''}: ironwail reads them, "
                        "Q2PRO and FTE refuse the file; write one box a frame")
    base = _pairs(text, "baseframe", num_joints)
    frame_start = text.pos
    width = num_components + 4
    numbers_seen, frames = _frame_blocks(text, num_frames, num_components) or _frames_one_by_one(
        text, num_frames, num_components)
    if text.peek() is not None:
        raise text.expected("the end of the file" if text.peek() != b"frame"
                            else f"no more than the {num_frames} frames announced")
    order_block = np.array(numbers_seen, dtype=object).reshape(num_frames, 1)
    order = indexed(text, np.concatenate([order_block, order_block], axis=1), 1, num_frames, frame_start,
                    width, "frame")
    frame_order = None
    if (order != np.arange(num_frames)).any():
        frame_order = np.array(numbers_seen, np.int64)
        frames = frames[order]
        warnings.append("the frames are not in order: FTE refuses the file")
    anim = Md5Anim(joint_names=names, joint_parents=parents, joint_flags=flags, joint_start=first,
                   frame_rate=frame_rate, bounds=bounds, base_pos=base[:, 0], base_orient=base[:, 1],
                   frames=frames, header=header, frame_order=frame_order, source=source_of(text))
    anim.warnings = warnings + anim_warnings(anim)
    return anim


def _frame_blocks(text: Md5Text, num_frames: int, num_components: int) -> tuple[list[int], np.ndarray] | None:
    """Every ``frame N { ... }`` block at once, when the rest of the text is exactly ``num_frames`` well-formed
    blocks (the same checks as :func:`_frames_one_by_one`, a column at a time); None otherwise, and the blocks
    are read one by one, which names the first wrong token."""
    width = num_components + 4
    start, end = text.pos, text.pos + num_frames * width
    if end != len(text.tokens) or any(text.quoted[start:end]):
        return None
    block = np.array(text.tokens[start:end], dtype=object).reshape(num_frames, width)
    if not ((block[:, 0] == b"frame").all() and (block[:, 2] == b"{").all() and (block[:, -1] == b"}").all()
            and NUMBER_COLUMN[int].match(b"\n".join(block[:, 1].tolist()))):
        return None
    frames = np.zeros((num_frames, 0))
    if num_components:
        # digits, signs, points and exponents only, then Python's float(): over those characters the same
        # numbers as the one-number pattern (Q2PRO MD5_ParseFloat's rule); anything else is checked one by one
        numbers = block[:, 3:-1]
        if b"".join(numbers.ravel().tolist()).translate(None, b"0123456789+-.eE"):
            return None
        try:
            frames = numbers.astype(np.float64)
        except ValueError:
            return None
    text.pos = end
    return list(map(int, block[:, 1].tolist())), frames


def _frames_one_by_one(text: Md5Text, num_frames: int, num_components: int) -> tuple[list[int], np.ndarray]:
    frames = np.zeros((num_frames, num_components))
    numbers_seen = []
    for k in range(num_frames):
        if text.peek() != b"frame":
            raise text.expected(f"'frame' ({num_frames} frames announced, {k} found)")
        text.pos += 1
        numbers_seen.append(text.integer("the frame number"))
        text.expect(b"{")
        row = text.records(num_components, (float,), f"frame {numbers_seen[-1]} component")
        if num_components:
            frames[k] = row[:, 0].astype(np.float64)
        text.expect(b"}")
    return numbers_seen, frames
