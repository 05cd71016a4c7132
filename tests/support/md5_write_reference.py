"""The MD5 writer as it was before the speed work of issue 33 (formats/md5/write.py at commit ec3aa7c), kept as
the reference the faster writer must match byte for byte (tests/md5/test_md5_write_identity.py): it laid the
file out one token at a time and compared every token with the kept file's."""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from formats.errors import FormatError
from formats.md5.records import Md5Anim, Md5Mesh, Md5Source
from formats.md5.text import _FLOAT, _INT


@dataclass(frozen=True)
class Md5Style:
    indent: str = "\t"
    decimals: int = 6
    joint_comments: bool = True     # "// <parent name>" after each joint and hierarchy line
    name_gap: str = "\t"            # between a joint's name and its parent
    comment_gap: str | None = None  # before that comment (None: two tabs after a joint, one in a hierarchy)


def detect_style(source: Md5Source | None) -> Md5Style:
    """The indent, the joint lines' spacing and comments, and the largest count of decimals of ``source``
    (so that no number is printed less precisely than the file printed it); the default without one."""
    if source is None or not source.tokens:
        return Md5Style()
    decimals = {len(t) - t.index(b".") - 1 for t, q in zip(source.tokens, source.quoted)
                if not q and b"." in t and b"e" not in t.lower() and _FLOAT.match(t)}
    indent = "\t"
    for i, token in enumerate(source.tokens[:-1]):
        if token == b"{" and not source.quoted[i]:
            gap = source.data[source.ends[i]:source.starts[i + 1]]
            last_line = gap.rsplit(b"\n", 1)[-1]
            if gap.count(b"\n") and last_line.strip(b" \t") == b"":
                indent = last_line.decode("ascii") or indent
            line_end = source.data.find(b"\n", source.starts[i + 1])
            line = source.data[source.starts[i + 1]:line_end if line_end >= 0 else len(source.data)]
            name_gap = source.data[source.ends[i + 1]:source.starts[i + 2]].decode("latin-1") \
                if i + 2 < len(source.starts) else "\t"
            comment = line.find(b"//")
            comment_gap = re.search(rb"[ \t]*\Z", line[:comment]).group().decode() if comment > 0 else None
            return Md5Style(indent, max(decimals) if decimals else 6, comment >= 0,
                            name_gap if name_gap.strip(" \t") == "" and name_gap else "\t", comment_gap)
    return Md5Style(indent, max(decimals) if decimals else 6)


class Out:
    """The file as segments (kind, value, text): kinds ``raw`` (layout only), ``word``, ``str``, ``int``,
    ``float``."""

    def __init__(self, style: Md5Style) -> None:
        self.style = style
        self.segments: list[tuple[str, object, str]] = []
        self.joints = 0

    def raw(self, text: str) -> None:
        self.segments.append(("raw", None, text))

    def word(self, word: str) -> None:
        self.segments.append(("word", word, word))

    def string(self, value: str, what: str) -> None:
        if '"' in value or "\n" in value or "\r" in value:
            raise FormatError(f"{what} holds a quote or a line break, which MD5 text cannot hold", field=what)
        self.segments.append(("str", value, f'"{value}"'))

    def int(self, value) -> None:
        self.segments.append(("int", int(value), str(int(value))))

    def float(self, value) -> None:
        value = float(value)
        self.segments.append(("float", value, self.float_text(value)))

    def float_text(self, value: float) -> str:
        if not np.isfinite(value):
            return "nan" if np.isnan(value) else ("inf" if value > 0 else "-inf")
        return f"{value:.{self.style.decimals}f}"

    def floats(self, values: np.ndarray, sep: str = " ") -> None:
        for i, value in enumerate(np.asarray(values, np.float64).ravel().tolist()):
            if i:
                self.raw(sep)
            self.float(value)

    def vector(self, values: np.ndarray) -> None:
        self.word("(")
        self.raw(" ")
        self.floats(values)
        self.raw(" ")
        self.word(")")

    def text(self) -> str:
        return "".join(s[2] for s in self.segments)


def _same(kind: str, value, token: bytes, quoted: bool, encoding: str) -> bool | None:
    """True: the source token says ``value``; False: a different value of the same kind; None: not
    the same kind of token (the file's shape changed)."""
    if kind == "word":
        return None if quoted or token != value.encode() else True
    if kind == "str":
        try:
            return token.decode(encoding) == value
        except UnicodeDecodeError:
            return False
    if quoted:
        return None
    if kind == "int":
        return int(token) == value if _INT.match(token) else None
    if not _FLOAT.match(token):
        return None
    read = float(token)
    return read == value or (read != read and value != value)


def merged_text(out: Out, source: Md5Source, encoding: str) -> bytes | None:
    """The source's text with changed values replaced, or None when the shape differs."""
    tokens = [s for s in out.segments if s[0] != "raw"]
    if len(tokens) != len(source.tokens):
        return None
    data, starts, ends = source.data, source.starts, source.ends
    pieces = [data[:starts[0]] if starts else data]
    for i, (kind, value, text) in enumerate(tokens):
        same = _same(kind, value, source.tokens[i], source.quoted[i], encoding)
        if same is None:
            return None
        pieces.append(data[starts[i]:ends[i]] if same else _encoded(text, encoding))
        pieces.append(data[ends[i]:starts[i + 1]] if i + 1 < len(starts) else data[ends[i]:])
    return b"".join(pieces)


def _encoded(text: str, encoding: str) -> bytes:
    try:
        return text.encode(encoding)
    except UnicodeEncodeError:
        raise FormatError(f"a name holds characters the file's {encoding} text cannot hold", field="md5") from None


def _finish(out: Out, source: Md5Source | None, keep_text: bool, encoding: str) -> bytes:
    if keep_text and source is not None:
        merged = merged_text(out, source, encoding)
        if merged is not None:
            return merged
    return _encoded(out.text(), encoding)


def _header(out: Out, header) -> None:
    for word in header.order:
        out.word(word)
        out.raw(" ")
        if word == "MD5Version":
            out.int(header.version)
        else:
            out.string(header.commandline or "", "commandline")
        out.raw("\n")
    out.raw("\n")


def _check(shape_ok: bool, message: str) -> None:
    if not shape_ok:
        raise FormatError(message, field="md5")


def write_md5mesh(mesh: Md5Mesh, style: Md5Style | None = None, keep_text: bool = True) -> bytes:
    """The text of ``mesh``: the source's own text where it still holds (see the module), else printed."""
    out = Out(style or detect_style(mesh.source))
    i = out.style.indent
    names, parents = mesh.joint_names, np.asarray(mesh.joint_parents)
    _check(len(parents) == len(names) and np.shape(mesh.joint_pos) == (len(names), 3)
           and np.shape(mesh.joint_orient) == (len(names), 3), "joint arrays of different lengths")
    _check(len(names) > 0 and len(mesh.meshes) > 0, "a mesh file needs a joint and a mesh (the engines refuse none)")
    _check(bool(((parents >= -1) & (parents < len(names))).all()), "a joint's parent is outside -1 .. joints - 1")
    out.joints = len(names)
    _header(out, mesh.header)
    out.word("numJoints"), out.raw(" "), out.int(len(names)), out.raw("\n")
    out.word("numMeshes"), out.raw(" ")
    out.int(mesh.declared_meshes if mesh.declared_meshes is not None else len(mesh.meshes))
    out.raw("\n\n")
    out.word("joints"), out.raw(" "), out.word("{"), out.raw("\n")
    for j, name in enumerate(names):
        out.raw(i), out.string(name, f"joint {j} name"), out.raw(out.style.name_gap), out.int(parents[j])
        out.raw(" "), out.vector(mesh.joint_pos[j]), out.raw(" "), out.vector(mesh.joint_orient[j])
        if out.style.joint_comments:
            gap = "\t\t" if out.style.comment_gap is None else out.style.comment_gap
            out.raw(gap + "// " + (names[parents[j]] if 0 <= parents[j] < len(names) else ""))
        out.raw("\n")
    out.word("}"), out.raw("\n\n")
    for m, part in enumerate(mesh.meshes):
        _mesh_part(out, part, m)
    return _finish(out, mesh.source, keep_text, mesh.header.encoding)


def _mesh_part(out: Out, part, m: int) -> None:
    i = out.style.indent
    v, t, w = part.num_verts, len(part.triangles), len(part.weight_bias)
    _check(np.shape(part.uv) == (v, 2) and np.shape(part.weight_start) == (v,) and np.shape(part.weight_count) == (v,)
           and np.shape(part.triangles) == (t, 3) and np.shape(part.weight_joint) == (w,)
           and np.shape(part.weight_pos) == (w, 3), f"mesh {m}: arrays of different lengths")
    # what the reader (and the engines) would refuse is refused here, so no file is written unreadable
    _check(not v or bool(((np.asarray(part.weight_start) >= 0) & (np.asarray(part.weight_count) >= 0)
                          & (np.asarray(part.weight_start) + np.asarray(part.weight_count) <= w)).all()),
           f"mesh {m}: a vertex uses weights past its {w} weights")
    _check(not t or bool(((np.asarray(part.triangles) >= 0) & (np.asarray(part.triangles) < v)).all()),
           f"mesh {m}: a triangle uses a vertex outside its {v} vertices")
    _check(not w or bool(((np.asarray(part.weight_joint) >= 0) & (np.asarray(part.weight_joint) < out.joints)).all()),
           f"mesh {m}: a weight uses a joint outside the {out.joints} joints")
    out.word("mesh"), out.raw(" "), out.word("{"), out.raw("\n")
    if part.shader is not None:
        out.raw(i), out.word("shader"), out.raw(" "), out.string(part.shader, f"mesh {m} shader"), out.raw("\n\n")
    out.raw(i), out.word("numverts"), out.raw(" "), out.int(v), out.raw("\n")
    starts, counts = np.asarray(part.weight_start).tolist(), np.asarray(part.weight_count).tolist()
    for k in range(v):
        out.raw(i), out.word("vert"), out.raw(" "), out.int(k), out.raw(" "), out.word("("), out.raw(" ")
        out.floats(part.uv[k]), out.raw(" "), out.word(")"), out.raw(" ")
        out.int(starts[k]), out.raw(" "), out.int(counts[k]), out.raw("\n")
    out.raw("\n"), out.raw(i), out.word("numtris"), out.raw(" "), out.int(t), out.raw("\n")
    for k, (a, b, c) in enumerate(np.asarray(part.triangles).tolist()):
        out.raw(i), out.word("tri"), out.raw(" "), out.int(k)
        out.raw(" "), out.int(a), out.raw(" "), out.int(b), out.raw(" "), out.int(c), out.raw("\n")
    out.raw("\n"), out.raw(i), out.word("numweights"), out.raw(" "), out.int(w), out.raw("\n")
    joints, biases = np.asarray(part.weight_joint).tolist(), np.asarray(part.weight_bias).tolist()
    for k in range(w):
        out.raw(i), out.word("weight"), out.raw(" "), out.int(k), out.raw(" "), out.int(joints[k]), out.raw(" ")
        out.float(biases[k]), out.raw(" "), out.vector(part.weight_pos[k]), out.raw("\n")
    out.word("}"), out.raw("\n\n")


def _rate(out: Out, rate: float) -> None:
    if float(rate).is_integer() and abs(rate) < 1e15:
        out.segments.append(("float", float(rate), str(int(rate))))
    else:
        out.segments.append(("float", float(rate), repr(float(rate))))


def write_md5anim(anim: Md5Anim, style: Md5Style | None = None, keep_text: bool = True) -> bytes:
    """The text of ``anim``: the source's own text where it still holds (see the module), else printed."""
    out = Out(style or detect_style(anim.source))
    i = out.style.indent
    n, f, c = anim.num_joints, anim.num_frames, anim.frames.shape[1] if np.ndim(anim.frames) == 2 else -1
    _check(c >= 0 and all(np.shape(a) == (n,) for a in (anim.joint_parents, anim.joint_flags, anim.joint_start))
           and np.shape(anim.base_pos) == (n, 3) and np.shape(anim.base_orient) == (n, 3)
           and np.ndim(anim.bounds) == 3 and np.shape(anim.bounds)[1:] == (2, 3), "anim arrays of different shapes")
    flags, first = np.asarray(anim.joint_flags), np.asarray(anim.joint_start)
    widths = np.array([bin(int(x) & 63).count("1") for x in flags], np.int64)
    _check(n > 0 and f > 0, "an anim needs a joint and a frame (the engines refuse none)")
    _check(bool(((flags >= 0) & (flags <= 63) & (first >= 0) & (first + widths <= c)).all()),
           "a joint's flags or start index fall outside the animated components")
    _check(bool((np.asarray(anim.joint_parents) < np.arange(n)).all() and (np.asarray(anim.joint_parents) >= -1).all()),
           "a joint's parent does not come before it")
    _header(out, anim.header)
    out.word("numFrames"), out.raw(" "), out.int(f), out.raw("\n")
    out.word("numJoints"), out.raw(" "), out.int(n), out.raw("\n")
    out.word("frameRate"), out.raw(" "), _rate(out, anim.frame_rate), out.raw("\n")
    out.word("numAnimatedComponents"), out.raw(" "), out.int(c), out.raw("\n\n")
    out.word("hierarchy"), out.raw(" "), out.word("{"), out.raw("\n")
    parents, flags, first = (np.asarray(a).tolist() for a in (anim.joint_parents, anim.joint_flags, anim.joint_start))
    for j, name in enumerate(anim.joint_names):
        out.raw(i), out.string(name, f"joint {j} name"), out.raw(out.style.name_gap), out.int(parents[j])
        out.raw(" "), out.int(flags[j]), out.raw(" "), out.int(first[j])
        parent = anim.joint_names[parents[j]] if 0 <= parents[j] < n else ""
        gap = "\t" if out.style.comment_gap is None else out.style.comment_gap
        out.raw((gap + "//" + (" " + parent if parent else "") + "\n") if out.style.joint_comments else "\n")
    out.word("}"), out.raw("\n\n")
    out.word("bounds"), out.raw(" "), out.word("{"), out.raw("\n")
    for low, high in np.asarray(anim.bounds, np.float64):
        out.raw(i), out.vector(low), out.raw(" "), out.vector(high), out.raw("\n")
    out.word("}"), out.raw("\n\n")
    out.word("baseframe"), out.raw(" "), out.word("{"), out.raw("\n")
    for j in range(n):
        out.raw(i), out.vector(anim.base_pos[j]), out.raw(" "), out.vector(anim.base_orient[j]), out.raw("\n")
    out.word("}"), out.raw("\n\n")
    breaks = {first[j] for j in range(n) if flags[j] & 63} | {0}    # a line per joint, in component order
    order = anim.frame_order if anim.frame_order is not None else range(f)
    for k in np.asarray(order).tolist():
        out.word("frame"), out.raw(" "), out.int(k), out.raw(" "), out.word("{")
        for index, value in enumerate(np.asarray(anim.frames[k], np.float64).tolist()):
            out.raw("\n" + i if index in breaks else " ")
            out.float(value)
        out.raw("\n"), out.word("}"), out.raw("\n\n")
    return _finish(out, anim.source, keep_text, anim.header.encoding)
