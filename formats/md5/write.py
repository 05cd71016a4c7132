"""MD5 writer: :class:`~.records.Md5Mesh` / :class:`~.records.Md5Anim` -> text.

The writer first lays the file out token by token (:class:`Out`; blocks of records a column at a time). When the model was read from a file
(its :attr:`source`) and the new tokens have the same shape (same keywords and braces in the same
places: the same counts), the file's own text is given back: every token whose value is unchanged
keeps its characters (``-0.000000``, ``1.0000000000``, a name with or without quotes) and the text
between tokens (tabs, blank lines, ``// comments``) is kept; a changed value is printed in the file's
style. Otherwise the whole text is printed in a :class:`Md5Style`: the one detected in the source
(indent, decimals), or the default, the layout of the Doom 3 exporter that most free files use (tabs,
six decimals as C's ``%f``, ``// parent`` after each joint, a blank line between blocks).

Whatever the readers (:mod:`.mesh`, :mod:`.anim`) refuse, the writer refuses before printing (counts,
indices, parents, flags, frame numbers, the header, a quote, line break or NUL in a string), so that
its text always reads back: the exporter does not parse its files again.
"""
from __future__ import annotations

import builtins
import re
from dataclasses import dataclass
from itertools import chain, compress
from operator import not_
from typing import cast

import numpy as np

from ..errors import FormatError
from .records import HEADER_WORDS, VERSION, Md5Anim, Md5Mesh, Md5Source
from .text import _FLOAT, _INT

_POINT_DIGITS = re.compile(rb"^[-+]?[0-9]+\.([0-9]*)$", re.M)      # the decimals of "1.25", "-3."
_POINT_FIRST = re.compile(rb"^[-+]?\.([0-9]+)$", re.M)             # of ".5"


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
    if source.style is None:        # once per file: the decimals look at every token
        source.style = _detected_style(source)
    return cast(Md5Style, source.style)


def _detected_style(source: Md5Source) -> Md5Style:
    # unquoted tokens one a line; a number with a point and no exponent is all digits around one point
    lines = b"\n".join(compress(source.tokens, map(not_, source.quoted)))
    decimals = set(map(len, _POINT_DIGITS.findall(lines))) | set(map(len, _POINT_FIRST.findall(lines)))
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
            comment_gap = cast(re.Match, re.search(rb"[ \t]*\Z", line[:comment])).group().decode() \
                if comment > 0 else None
            return Md5Style(indent, max(decimals) if decimals else 6, comment >= 0,
                            name_gap if name_gap.strip(" \t") == "" and name_gap else "\t", comment_gap)
    return Md5Style(indent, max(decimals) if decimals else 6)


def _checked(value: str, what: str) -> str:
    if '"' in value or "\n" in value or "\r" in value or "\0" in value:
        raise FormatError(f"{what} holds a quote, a line break or a NUL, which MD5 text cannot hold", field=what)
    return value


class Out:
    """The file as text pieces (layout and tokens, in order, for :meth:`text`) and its tokens as parallel
    lists: ``kinds`` (``word``, ``str``, ``int``, ``float``), ``values`` and ``texts``. Blocks of records
    of one shape (vertices, weights, frames) are added a column at a time (:meth:`records`)."""

    def __init__(self, style: Md5Style) -> None:
        self.style = style
        self.float_format = f"%.{style.decimals}f"     # as f"{v:.Nf}": "nan", "inf", "-inf" alike
        self.pieces: list[str] = []
        self.kinds: list[str] = []
        self.values: list = []
        self.texts: list[str] = []
        self.joints = 0

    def _token(self, kind: str, value, text: str) -> None:
        self.pieces.append(text)
        self.kinds.append(kind)
        self.values.append(value)
        self.texts.append(text)

    def raw(self, text: str) -> None:
        self.pieces.append(text)

    def word(self, word: str) -> None:
        self._token("word", word, word)

    def string(self, value: str, what: str) -> None:
        self._token("str", _checked(value, what), f'"{value}"')

    def int(self, value) -> None:
        self._token("int", int(value), str(int(value)))

    def float(self, value) -> None:
        value = float(value)
        self._token("float", value, self.float_format % value)

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

    def records(self, count: builtins.int, columns: list) -> None:
        """``count`` records laid out by ``columns``, each a layout string, ``("word", word)``,
        a list of layout strings (one a record),
        ``("int", values)``, ``("float", values)`` or ``("str", strings)`` (``count`` values each): the pieces and tokens
        :meth:`word`, :meth:`int`, :meth:`float` and :meth:`raw` would give record by record."""
        pieces, kinds, values, texts = [], [], [], []
        for column in columns:
            if isinstance(column, (str, list)):         # layout: the same in every record, or each its own
                pieces.append([column] * count if isinstance(column, str) else column)
                continue
            kind, given = column
            if kind == "word":
                shown = [given] * count
                value = shown
            elif kind == "str":                         # checked by the caller (:func:`_checked`)
                value = given
                shown = [f'"{v}"' for v in value]
            elif kind == "int":
                value = [int(v) for v in given]
                shown = list(map(str, value))
            else:
                value = list(map(float, given))
                shown = [self.float_format % v for v in value]
            pieces.append(shown)
            kinds.append([kind] * count)
            values.append(value)
            texts.append(shown)
        flat = chain.from_iterable
        self.pieces.extend(flat(zip(*pieces)))
        self.kinds.extend(flat(zip(*kinds)))
        self.values.extend(flat(zip(*values)))
        self.texts.extend(flat(zip(*texts)))

    def text(self) -> str:
        return "".join(self.pieces)


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
    """The source's text with changed values replaced, or None when the shape differs. A token printed
    as the source has it (not quoted there, not a string) gives the same characters whatever
    :func:`_same` says; only the others are compared."""
    tokens, quoted, starts, ends, data = source.tokens, source.quoted, source.starts, source.ends, source.data
    if len(out.kinds) != len(tokens):
        return None
    if not tokens:
        return data
    printed = "\0".join(out.texts).encode("utf-8", "surrogatepass").split(b"\0")
    pieces, last = [], 0
    for i in [i for i, (kind, old, new, q) in enumerate(zip(out.kinds, tokens, printed, quoted))
              if q or old != new or kind == "str"]:
        same = _same(out.kinds[i], out.values[i], tokens[i], quoted[i], encoding)
        if same is None:
            return None
        if not same:
            pieces += [data[last:starts[i]], _encoded(out.texts[i], encoding)]
            last = ends[i]
    pieces.append(data[last:])
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
    _check(len(set(header.order)) == len(header.order) and set(header.order) <= set(HEADER_WORDS)
           and ("MD5Version" not in header.order or header.version == VERSION),
           f"the header must hold MD5Version {VERSION} and commandline once each at most")
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
    _check(mesh.declared_meshes is None or mesh.declared_meshes >= len(mesh.meshes),
           "numMeshes below the mesh blocks written")
    out.int(mesh.declared_meshes if mesh.declared_meshes is not None else len(mesh.meshes))
    out.raw("\n\n")
    out.word("joints"), out.raw(" "), out.word("{"), out.raw("\n")
    joints = len(names)
    gap = "\t\t" if out.style.comment_gap is None else out.style.comment_gap
    ends = [(gap + "// " + (names[p] if 0 <= p < joints else "") if out.style.joint_comments else "") + "\n"
            for p in parents.tolist()]
    out.records(joints, [i, ("str", [_checked(name, f"joint {j} name") for j, name in enumerate(names)]),
                         out.style.name_gap, ("int", parents.tolist()), " "]
                + _vector_pair(np.concatenate([np.asarray(mesh.joint_pos, np.float64),
                                               np.asarray(mesh.joint_orient, np.float64)], axis=1)) + [ends])
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
    uv = np.asarray(part.uv, np.float64).T.tolist() if v else [[], []]
    out.records(v, [i, ("word", "vert"), " ", ("int", range(v)), " ", ("word", "("), " ", ("float", uv[0]), " ",
                    ("float", uv[1]), " ", ("word", ")"), " ", ("int", np.asarray(part.weight_start).tolist()), " ",
                    ("int", np.asarray(part.weight_count).tolist()), "\n"])
    out.raw("\n"), out.raw(i), out.word("numtris"), out.raw(" "), out.int(t), out.raw("\n")
    corners = np.asarray(part.triangles).T.tolist() if t else [[], [], []]
    out.records(t, [i, ("word", "tri"), " ", ("int", range(t)), " ", ("int", corners[0]), " ", ("int", corners[1]),
                    " ", ("int", corners[2]), "\n"])
    out.raw("\n"), out.raw(i), out.word("numweights"), out.raw(" "), out.int(w), out.raw("\n")
    xyz = np.asarray(part.weight_pos, np.float64).T.tolist() if w else [[], [], []]
    out.records(w, [i, ("word", "weight"), " ", ("int", range(w)), " ", ("int", np.asarray(part.weight_joint).tolist()),
                    " ", ("float", np.asarray(part.weight_bias, np.float64).tolist()), " ", ("word", "("), " ",
                    ("float", xyz[0]), " ", ("float", xyz[1]), " ", ("float", xyz[2]), " ", ("word", ")"), "\n"])
    out.word("}"), out.raw("\n\n")


def _vector_pair(rows: np.ndarray) -> list:
    """The columns of ``( a b c ) ( d e f )`` records of (N, 6) ``rows``."""
    x = rows.T.tolist() if len(rows) else [[]] * 6
    return [("word", "("), " ", ("float", x[0]), " ", ("float", x[1]), " ", ("float", x[2]), " ", ("word", ")"), " ",
            ("word", "("), " ", ("float", x[3]), " ", ("float", x[4]), " ", ("float", x[5]), " ", ("word", ")")]


def _rate(out: Out, rate: float) -> None:
    if float(rate).is_integer() and abs(rate) < 1e15:
        out._token("float", float(rate), str(int(rate)))
    else:
        out._token("float", float(rate), repr(float(rate)))


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
    names = anim.joint_names
    gap = "\t" if out.style.comment_gap is None else out.style.comment_gap
    ends = [(gap + "//" + (" " + names[p] if 0 <= p < n and names[p] else "") + "\n") if out.style.joint_comments
            else "\n" for p in parents]
    out.records(n, [i, ("str", [_checked(name, f"joint {j} name") for j, name in enumerate(names)]),
                    out.style.name_gap, ("int", parents), " ", ("int", flags), " ", ("int", first), ends])
    out.word("}"), out.raw("\n\n")
    out.word("bounds"), out.raw(" "), out.word("{"), out.raw("\n")
    out.records(len(anim.bounds), [i] + _vector_pair(np.asarray(anim.bounds, np.float64).reshape(-1, 6)) + ["\n"])
    out.word("}"), out.raw("\n\n")
    out.word("baseframe"), out.raw(" "), out.word("{"), out.raw("\n")
    base = np.concatenate([np.asarray(anim.base_pos, np.float64), np.asarray(anim.base_orient, np.float64)], axis=1)
    out.records(n, [i] + _vector_pair(base) + ["\n"])
    out.word("}"), out.raw("\n\n")
    breaks = {first[j] for j in range(n) if flags[j] & 63} | {0}    # a line per joint, in component order
    order = np.asarray(anim.frame_order if anim.frame_order is not None else range(f), np.int64)
    _check(np.array_equal(np.sort(order), np.arange(f)), "the frame numbers are not each of 0 .. frames - 1 once")
    values = np.asarray(anim.frames, np.float64)[order].T.tolist()
    columns: list = [("word", "frame"), " ", ("int", order.tolist()), " ", ("word", "{")]
    for index, column in enumerate(values):
        columns += ["\n" + i if index in breaks else " ", ("float", column)]
    out.records(f, columns + ["\n", ("word", "}"), "\n\n"])
    return _finish(out, anim.source, keep_text, anim.header.encoding)
