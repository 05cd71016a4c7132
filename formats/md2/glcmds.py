"""MD2 GL commands: build them the way id's qdata does, and decode them.

Layout (int32 words, little-endian; docs/dev/format-facts.md, "MD2", GL commands; Quake-2
``ref_gl/gl_mesh.c`` ``GL_DrawAliasFrameLerp``)::

    repeat:     int32 count                 > 0: triangle strip of count vertices
                                            < 0: triangle fan of -count vertices
                |count| x {float s, float t, int32 vertex_index}
    until       int32 0                     end of list; num_glcmds counts this word too

    s = (st.s + 0.5) / skinwidth            texel centres, as qdata writes them
    t = (st.t + 0.5) / skinheight

Strip triangle k uses records (k, k+1, k+2), with every odd k swapped to (k+1, k, k+2); fan
triangle k uses (0, k+1, k+2). Both give the corners in the order of the file's triangle list
(clockwise seen from the front), because qdata starts every run with one triangle's own corners.
"""
from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

import numpy as np

from ..errors import FormatError

FIELD = "glcmds"
RECORD_WORDS = 3
WORD_SIZE = 4


@dataclass(frozen=True)
class GlCommand:
    """One strip or fan: per-vertex texture coordinates and vertex indices.

    ``offset`` is the byte offset of the count word from the start of the glcmds block.
    """
    fan: bool
    s: np.ndarray          # (n,) float32
    t: np.ndarray          # (n,) float32
    vertex: np.ndarray     # (n,) int32
    offset: int

    @property
    def num_triangles(self) -> int:
        return max(len(self.vertex) - 2, 0)

    def corner_records(self) -> np.ndarray:
        """(num_triangles, 3) record indices of each triangle, in the file's winding."""
        k = np.arange(self.num_triangles)
        if self.fan:
            return np.stack([np.zeros_like(k), k + 1, k + 2], axis=1)
        odd = k & 1
        return np.stack([k + odd, k + 1 - odd, k + 2], axis=1)


def build_glcmds(tri_xyz: np.ndarray, tri_st: np.ndarray, st: np.ndarray,
                 skin_width: int, skin_height: int) -> np.ndarray:
    """GL commands for a triangle list, word for word as qdata's ``BuildGlCmds`` writes them.

    qdata (Quake 2 tools, ``models.c``) walks the triangles in order. For every triangle not yet
    used it tries a fan and then a strip from each of its three corners (``FanLength``,
    ``StripLength``) and keeps the first longest; the triangles of that run become used. A run
    grows by scanning the triangles after the start triangle for the first one, in (triangle,
    corner) order, holding the run's open edge (xyz and st index both equal) in the same
    direction; if that triangle is already used, the run ends. The scan restarts after every
    step (``goto nexttri``), so the next triangle is always the lowest-numbered one after the
    start triangle that holds the edge, at its lowest such corner. Here every directed edge maps
    to its sorted (triangle, corner) list and a bisection finds that entry, so a step costs
    O(log n) instead of a scan, with the same result.

    qdata's 128-entry strip buffers overflow on runs longer than 126 triangles; here runs have no
    such limit. Returns int32 words ending with the 0 terminator; s and t are computed in double
    precision and stored as float32, as qdata does. Raises :class:`FormatError` for mismatched
    shapes, a non-positive skin size or an st index outside ``st``.
    """
    tri_xyz = np.asarray(tri_xyz)
    tri_st = np.asarray(tri_st)
    st = np.asarray(st)
    _check_build_input(tri_xyz, tri_st, st, skin_width, skin_height)
    xyz = tri_xyz.astype(np.int64).tolist()
    sts = tri_st.astype(np.int64).tolist()
    num_tris = len(xyz)

    edges: dict[tuple[int, int, int, int], list[int]] = {}
    for j in range(num_tris):
        x, s = xyz[j], sts[j]
        for k in range(3):
            k1 = (k + 1) % 3
            edges.setdefault((x[k], s[k], x[k1], s[k1]), []).append(j * 3 + k)

    used = bytearray(num_tris)
    run_xyz: list[int] = []
    run_st: list[int] = []
    counts: list[int] = []
    for i in range(num_tris):
        if used[i]:
            continue
        best: tuple[list[int], list[int], list[int]] = ([], [], [])
        best_fan = True
        for fan in (True, False):
            for startv in range(3):
                run = _run(i, startv, fan, xyz, sts, edges, used)
                if len(run[2]) > len(best[2]):
                    best_fan, best = fan, run
        fan, (corners_xyz, corners_st, tris) = best_fan, best
        for j in tris:
            used[j] = 1
        counts.append(-len(corners_xyz) if fan else len(corners_xyz))
        run_xyz.extend(corners_xyz)
        run_st.extend(corners_st)

    return _emit(counts, run_xyz, run_st, st, skin_width, skin_height)


def _run(starttri: int, startv: int, fan: bool, xyz: list[list[int]], sts: list[list[int]],
         edges: dict[tuple[int, int, int, int], list[int]], used: bytearray
         ) -> tuple[list[int], list[int], list[int]]:
    """``FanLength`` / ``StripLength``: the run's corner xyz, corner st and triangles."""
    x, s = xyz[starttri], sts[starttri]
    order = (startv, (startv + 1) % 3, (startv + 2) % 3)
    corners_xyz = [x[v] for v in order]
    corners_st = [s[v] for v in order]
    tris = [starttri]
    if fan:
        m1, st1, m2, st2 = x[order[0]], s[order[0]], x[order[2]], s[order[2]]
    else:
        m1, st1, m2, st2 = x[order[2]], s[order[2]], x[order[1]], s[order[1]]
    used[starttri] = 2
    first_after = (starttri + 1) * 3
    while True:
        matches = edges.get((m1, st1, m2, st2))
        if not matches:
            break
        at = bisect_left(matches, first_after)
        if at == len(matches):
            break
        j, k = divmod(matches[at], 3)
        if used[j]:
            break
        k2 = (k + 2) % 3
        new_xyz, new_st = xyz[j][k2], sts[j][k2]
        if fan or len(tris) & 1:
            m2, st2 = new_xyz, new_st
        else:
            m1, st1 = new_xyz, new_st
        corners_xyz.append(new_xyz)
        corners_st.append(new_st)
        tris.append(j)
        used[j] = 2
    for j in tris[1:]:
        used[j] = 0
    return corners_xyz, corners_st, tris


def _emit(counts: list[int], run_xyz: list[int], run_st: list[int], st: np.ndarray,
          skin_width: int, skin_height: int) -> np.ndarray:
    corner_st = st[np.asarray(run_st, dtype=np.int64)].astype(np.float64).reshape(-1, 2)
    s = ((corner_st[:, 0] + 0.5) / skin_width).astype(np.float32).view(np.int32)
    t = ((corner_st[:, 1] + 0.5) / skin_height).astype(np.float32).view(np.int32)
    records = np.stack([s, t, np.asarray(run_xyz, dtype=np.int32).reshape(-1)], axis=1)
    words = np.empty(len(counts) + records.size + 1, dtype=np.int32)
    pos = 0
    start = 0
    for count in counts:
        n = abs(count)
        words[pos] = count
        words[pos + 1:pos + 1 + RECORD_WORDS * n] = records[start:start + n].reshape(-1)
        pos += 1 + RECORD_WORDS * n
        start += n
    words[pos] = 0
    return words


def _check_build_input(tri_xyz: np.ndarray, tri_st: np.ndarray, st: np.ndarray,
                       skin_width: int, skin_height: int) -> None:
    if tri_xyz.ndim != 2 or tri_xyz.shape[1:] != (3,) or tri_st.shape != tri_xyz.shape:
        raise FormatError(f"triangle arrays have shapes {tri_xyz.shape} and {tri_st.shape}, "
                          "expected two equal (n, 3)", field="triangles")
    if st.ndim != 2 or st.shape[1:] != (2,):
        raise FormatError(f"st has shape {st.shape}, expected (n, 2)", field="st")
    if skin_width <= 0 or skin_height <= 0:
        raise FormatError(f"skin size {skin_width}x{skin_height} is not positive", field="skinwidth")
    if tri_xyz.size and int(tri_xyz.min()) < 0:
        raise FormatError("negative vertex index", field="index_xyz")
    if tri_st.size and (int(tri_st.min()) < 0 or int(tri_st.max()) >= len(st)):
        raise FormatError(f"st index out of range (num_st {len(st)})", field="index_st")


def decode_glcmds(words: np.ndarray, num_vertices: int) -> list[GlCommand]:
    """Split and validate a GL command list.

    Raises :class:`FormatError` with field ``"glcmds"`` when a run's records do not fit before the
    end of ``words``, a vertex index is outside ``[0, num_vertices)``, an s or t is not finite, or
    the 0 terminator is missing. Its ``offset`` is the byte offset of the bad word from the start
    of the glcmds block: the caller adds the block's file offset (``ofs_glcmds``). Words after
    the terminator are ignored, as the engine ignores them.
    """
    words = np.ascontiguousarray(words, dtype="<i4").reshape(-1)
    floats = words.view("<f4")
    commands: list[GlCommand] = []
    pos = 0
    end = len(words)
    while True:
        if pos >= end:
            raise FormatError("GL command list has no 0 terminator", field=FIELD,
                              offset=WORD_SIZE * end)
        count = int(words[pos])
        if count == 0:
            return commands
        n = abs(count)
        first, last = pos + 1, pos + 1 + RECORD_WORDS * n
        if last > end:
            raise FormatError(f"{'fan' if count < 0 else 'strip'} of {n} vertices runs past the "
                              f"end of the {end}-word list", field=FIELD, offset=WORD_SIZE * pos)
        records = words[first:last].reshape(n, RECORD_WORDS)
        st_floats = floats[first:last].reshape(n, RECORD_WORDS)[:, :2]
        bad = ~np.isfinite(st_floats)
        if bad.any():
            r, c = divmod(int(np.argmax(bad.reshape(-1))), 2)
            raise FormatError(f"non-finite {'st'[c]} coordinate", field=FIELD,
                              offset=WORD_SIZE * (first + RECORD_WORDS * r + c))
        vertex = records[:, 2]
        bad = (vertex < 0) | (vertex >= num_vertices)
        if bad.any():
            r = int(np.argmax(bad))
            raise FormatError(f"vertex index {int(vertex[r])} is out of range "
                              f"(num_vertices {num_vertices})", field=FIELD,
                              offset=WORD_SIZE * (first + RECORD_WORDS * r + 2))
        commands.append(GlCommand(fan=count < 0, s=st_floats[:, 0].astype(np.float32),
                                  t=st_floats[:, 1].astype(np.float32),
                                  vertex=vertex.astype(np.int32), offset=WORD_SIZE * pos))
        pos = last


def check_glcmds(words: np.ndarray, num_vertices: int) -> None:
    """Raise what :func:`decode_glcmds` raises for a bad list, checking every record at once."""
    _records(words, num_vertices)


def _records(words: np.ndarray, num_vertices: int):
    """(counts, records before each command, vertex, s, t) of a valid list, every record at once; a
    list with a problem goes through :func:`decode_glcmds`, which raises the error at its first bad word."""
    words = np.ascontiguousarray(words, dtype="<i4").reshape(-1)
    runs = _runs(words)
    if runs is not None:
        starts, counts = runs
        sizes = np.abs(counts)
        before = np.cumsum(sizes) - sizes
        offsets = np.repeat(starts + 1 - RECORD_WORDS * before, sizes) + RECORD_WORDS * np.arange(int(sizes.sum()))
        vertex = words[offsets + 2]
        floats = words.view("<f4")
        s, t = floats[offsets], floats[offsets + 1]
        if np.isfinite(s).all() and np.isfinite(t).all() and not ((vertex < 0) | (vertex >= num_vertices)).any():
            return counts, before, vertex, s, t
    decode_glcmds(words, num_vertices)
    raise FormatError("GL command list does not decode", field=FIELD)       # decode_glcmds raised already


def glcmd_triangles(words: np.ndarray, num_vertices: int
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Expand strips and fans into triangles in the file's winding.

    Returns ``(tri_vertex, tri_s, tri_t)``: (n, 3) int32 vertex indices and (n, 3) float32 s and
    t, one row per triangle, in command order. Validation and errors as :func:`decode_glcmds`.
    """
    counts, before, vertex, s, t = _records(words, num_vertices)
    tris = np.maximum(np.abs(counts) - 2, 0)
    base = np.repeat(before, tris)                                          # each triangle's first record
    k = np.arange(int(tris.sum())) - np.repeat(np.cumsum(tris) - tris, tris)
    fan = np.repeat(counts < 0, tris)
    odd = np.where(fan, 0, k & 1)
    corners = np.stack([np.where(fan, 0, k + odd), k + 1 - odd, k + 2], axis=1) + base[:, None]
    return (vertex[corners].astype(np.int32), s[corners].astype(np.float32), t[corners].astype(np.float32))


def _runs(words: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(word offsets, counts) of the commands before the 0 terminator, or None when a command runs past
    the end or the terminator is missing."""
    counts_at: list[int] = []
    counts: list[int] = []
    pos, end = 0, len(words)
    values = words.tolist()
    while pos < end:
        count = values[pos]
        if count == 0:
            return np.asarray(counts_at, dtype=np.int64), np.asarray(counts, dtype=np.int64)
        if pos + 1 + RECORD_WORDS * abs(count) > end:
            return None
        counts_at.append(pos)
        counts.append(count)
        pos += 1 + RECORD_WORDS * abs(count)
    return None
