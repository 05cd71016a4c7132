"""MD2 GL commands: qdata's strip/fan builder and the validating decoder.

Runs without Blender:
``.venvs/bpy-5.0/bin/python -m pytest -p no:pytest-blender tests/md2/test_md2_glcmds.py``
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from formats.errors import FormatError
from formats.md2.codec import Md2Model, parse_md2
from formats.md2.glcmds import build_glcmds, check_glcmds, decode_glcmds, glcmd_triangles

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
MD2_DIR = CORPUS / "md2"

# What each corpus file's own GL commands are, checked file by file:
#   "qdata": build_glcmds reproduces them word for word.
#   "qdata-shifted-s": same runs, same vertex indices and same t words as qdata's, but every s is
#       (st.s + 0.652) / skinwidth instead of (st.s + 0.5) / skinwidth, the same 0.152-texel
#       shift on every record. Not id's qdata output as-is: most likely an editor that copied
#       qdata's strip builder but kept float texture coordinates (shifted slightly in s) and
#       truncated them to whole texels for the st block. Its sibling waste.md2 (same author, same
#       package) is plain qdata. Each s still lies inside its st texel, so the two agree on texels.
# Files not listed here (added to the corpus later) get the checks that hold for any tool.
KNOWN_GLCMDS = {
    "assimp/faerie.md2": "qdata",
    "assimp/sydney.md2": "qdata",
    "glscene/waste.md2": "qdata",
    "glscene/weaponWaste.md2": "qdata-shifted-s",
    "irrlicht/gun.md2": "qdata",
    "petaaar88-zarlag/tris.md2": "qdata",
    "petaaar88-zarlag/weapon.md2": "qdata",
}


def _corpus_params() -> list:
    if not MD2_DIR.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"MD2 corpus not found at {MD2_DIR}"),
                             id="no-corpus")]
    return [pytest.param(path, id=path.relative_to(MD2_DIR).as_posix())
            for path in sorted(MD2_DIR.glob("*/*.md2")) if _parses(path)]


def _parses(path: Path) -> bool:
    """The deliberately broken corpus files are tested by the codec's bad-file tests, not here."""
    try:
        parse_md2(path.read_bytes())
    except FormatError:
        return False
    return True


def _load(path: Path) -> Md2Model:
    return parse_md2(path.read_bytes())


def _kind(path: Path) -> str | None:
    return KNOWN_GLCMDS.get(path.relative_to(MD2_DIR).as_posix())


def _build(model: Md2Model) -> np.ndarray:
    return build_glcmds(model.tri_xyz, model.tri_st, model.st, model.skin_width, model.skin_height)


# ----------------------------------------------------------------------------------------------
# Triangle multisets: corners (vertex, s, t) with the rotation that sorts first, so winding counts
# but the starting corner does not.

def _multiset(tri_vertex: np.ndarray, tri_s: np.ndarray, tri_t: np.ndarray) -> Counter:
    corners = np.stack([tri_vertex.astype(np.float64), tri_s.astype(np.float64),
                        tri_t.astype(np.float64)], axis=-1).tolist()
    return Counter(min(tuple(map(tuple, tri[r:] + tri[:r])) for r in range(3)) for tri in corners)


def _file_triangles(model: Md2Model) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The triangle list with texel-centre coordinates, as qdata writes them: (st + 0.5) / size."""
    st = model.st[model.tri_st.astype(np.int64)].astype(np.float64)
    s = ((st[..., 0] + 0.5) / model.skin_width).astype(np.float32)
    t = ((st[..., 1] + 0.5) / model.skin_height).astype(np.float32)
    return model.tri_xyz.astype(np.int32), s, t


def _records(words: np.ndarray, num_vertices: int) -> np.ndarray:
    """Every (s, t, vertex) record as int32 words, in order."""
    commands = decode_glcmds(words, num_vertices)
    return np.concatenate([np.stack([c.s.view(np.int32), c.t.view(np.int32), c.vertex], axis=1)
                           for c in commands])


# ----------------------------------------------------------------------------------------------
# Reference: a literal transcription of qdata's models.c (Quake 2 tools) StripLength, FanLength
# and BuildGlCmds, O(n^2) scans included. ``goto nexttri`` is the ``while`` loop coming round
# again to rescan from starttri + 1; ``goto done`` is a return through ``_done``.

class QdataReference:
    def __init__(self, tri_xyz, tri_st, st, skinwidth, skinheight):
        self.index_xyz = [[int(v) for v in tri] for tri in tri_xyz]
        self.index_st = [[int(v) for v in tri] for tri in tri_st]
        self.base_st = [(int(s), int(t)) for s, t in st]
        self.num_tris = len(self.index_xyz)
        self.skinwidth, self.skinheight = skinwidth, skinheight
        self.used = [0] * self.num_tris
        self.strip_xyz, self.strip_st, self.strip_tris = [], [], []

    def _start(self, starttri, startv):
        self.used[starttri] = 2
        last_xyz, last_st = self.index_xyz[starttri], self.index_st[starttri]
        self.strip_xyz = [last_xyz[startv % 3], last_xyz[(startv + 1) % 3], last_xyz[(startv + 2) % 3]]
        self.strip_st = [last_st[startv % 3], last_st[(startv + 1) % 3], last_st[(startv + 2) % 3]]
        self.strip_tris = [starttri]
        return last_xyz, last_st

    def _look_for_a_matching_triangle(self, starttri, m1, st1, m2, st2):
        """The ``nexttri:`` scan: the first (j, k) holding edge (m1, st1) -> (m2, st2)."""
        for j in range(starttri + 1, self.num_tris):
            check_xyz, check_st = self.index_xyz[j], self.index_st[j]
            for k in range(3):
                if check_xyz[k] != m1:
                    continue
                if check_st[k] != st1:
                    continue
                if check_xyz[(k + 1) % 3] != m2:
                    continue
                if check_st[(k + 1) % 3] != st2:
                    continue
                return j, k
        return None

    def _done(self, starttri, stripcount):
        for j in range(starttri + 1, self.num_tris):
            if self.used[j] == 2:
                self.used[j] = 0
        return stripcount

    def strip_length(self, starttri, startv):
        last_xyz, last_st = self._start(starttri, startv)
        stripcount = 1
        m1, st1 = last_xyz[(startv + 2) % 3], last_st[(startv + 2) % 3]
        m2, st2 = last_xyz[(startv + 1) % 3], last_st[(startv + 1) % 3]
        while True:
            match = self._look_for_a_matching_triangle(starttri, m1, st1, m2, st2)
            if match is None:
                return self._done(starttri, stripcount)
            j, k = match
            if self.used[j]:
                return self._done(starttri, stripcount)
            check_xyz, check_st = self.index_xyz[j], self.index_st[j]
            if stripcount & 1:
                m2, st2 = check_xyz[(k + 2) % 3], check_st[(k + 2) % 3]
            else:
                m1, st1 = check_xyz[(k + 2) % 3], check_st[(k + 2) % 3]
            self.strip_xyz.append(check_xyz[(k + 2) % 3])
            self.strip_st.append(check_st[(k + 2) % 3])
            self.strip_tris.append(j)
            stripcount += 1
            self.used[j] = 2

    def fan_length(self, starttri, startv):
        last_xyz, last_st = self._start(starttri, startv)
        stripcount = 1
        m1, st1 = last_xyz[(startv + 0) % 3], last_st[(startv + 0) % 3]
        m2, st2 = last_xyz[(startv + 2) % 3], last_st[(startv + 2) % 3]
        while True:
            match = self._look_for_a_matching_triangle(starttri, m1, st1, m2, st2)
            if match is None:
                return self._done(starttri, stripcount)
            j, k = match
            if self.used[j]:
                return self._done(starttri, stripcount)
            check_xyz, check_st = self.index_xyz[j], self.index_st[j]
            m2, st2 = check_xyz[(k + 2) % 3], check_st[(k + 2) % 3]
            self.strip_xyz.append(m2)
            self.strip_st.append(st2)
            self.strip_tris.append(j)
            stripcount += 1
            self.used[j] = 2

    def build_glcmds(self) -> np.ndarray:
        commands = []
        self.used = [0] * self.num_tris
        for i in range(self.num_tris):
            if self.used[i]:
                continue
            bestlen, besttype = 0, 0
            for type_ in range(2):
                for startv in range(3):
                    if type_ == 1:
                        length = self.strip_length(i, startv)
                    else:
                        length = self.fan_length(i, startv)
                    if length > bestlen:
                        besttype, bestlen = type_, length
                        best_xyz, best_st = self.strip_xyz[:bestlen + 2], self.strip_st[:bestlen + 2]
                        best_tris = self.strip_tris[:bestlen]
            for j in range(bestlen):
                self.used[best_tris[j]] = 1
            commands.append(bestlen + 2 if besttype == 1 else -(bestlen + 2))
            for j in range(bestlen + 2):
                s, t = self.base_st[best_st[j]]
                s = np.float32((s + 0.5) / self.skinwidth)
                t = np.float32((t + 0.5) / self.skinheight)
                commands += [int(s.view(np.int32)), int(t.view(np.int32)), best_xyz[j]]
        commands.append(0)
        return np.array(commands, dtype=np.int32)


def _random_grid(rng: np.random.Generator, width: int, height: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A width x height quad grid, clockwise, with a UV seam, shuffled and re-rotated triangles,
    and occasionally a duplicated, a flipped or a degenerate triangle."""
    vertex = np.arange((width + 1) * (height + 1)).reshape(height + 1, width + 1)
    num_verts = vertex.size
    seam = int(rng.integers(1, width + 1))
    xyz, sts = [], []
    for y in range(height):
        for x in range(width):
            a, b, c, d = vertex[y, x], vertex[y, x + 1], vertex[y + 1, x + 1], vertex[y + 1, x]
            quad = [(a, d, c), (a, c, b)] if rng.random() < 0.5 else [(a, d, b), (b, d, c)]
            for tri in quad:
                xyz.append(tri)
                sts.append(tuple(v + num_verts if x >= seam else v for v in tri))
    order = rng.permutation(len(xyz))
    xyz = [xyz[i] for i in order]
    sts = [sts[i] for i in order]
    for n in range(len(xyz)):
        r = int(rng.integers(0, 3))
        xyz[n] = xyz[n][r:] + xyz[n][:r]
        sts[n] = sts[n][r:] + sts[n][:r]
    for _ in range(int(rng.integers(0, 3))):
        n = int(rng.integers(0, len(xyz)))
        extra = int(rng.integers(0, 3))
        if extra == 0:
            at = int(rng.integers(0, len(xyz) + 1))
            xyz.insert(at, xyz[n])
            sts.insert(at, sts[n])
        elif extra == 1:
            xyz.append(xyz[n][::-1])
            sts.append(sts[n][::-1])
        else:
            xyz.append((xyz[n][0], xyz[n][0], xyz[n][1]))
            sts.append((sts[n][0], sts[n][0], sts[n][1]))
    st_table = np.stack([vertex % (width + 1), vertex // (width + 1)], axis=-1).reshape(-1, 2)
    st_table = np.concatenate([st_table, st_table + [1, 0]]).astype(np.int16)
    return np.array(xyz, dtype=np.uint16), np.array(sts, dtype=np.uint16), st_table


# ----------------------------------------------------------------------------------------------
# Corpus

@pytest.mark.parametrize("path", _corpus_params())
def test_file_glcmds_expand_to_the_file_triangles(path: Path) -> None:
    model = _load(path)
    vertex, s, t = glcmd_triangles(model.glcmds, model.num_vertices)
    file_vertex, file_s, file_t = _file_triangles(model)
    assert len(vertex) == len(model.tri_xyz)
    if _kind(path) == "qdata-shifted-s":
        texel = np.floor(s.astype(np.float64) * model.skin_width)
        file_texel = np.floor(file_s.astype(np.float64) * model.skin_width)
        assert _multiset(vertex, texel, t) == _multiset(file_vertex, file_texel, file_t)
        within_texel = s.astype(np.float64) * model.skin_width - texel
        assert np.ptp(within_texel) < 1e-4 and not np.allclose(within_texel, 0.5, atol=1e-4)
    else:
        assert _multiset(vertex, s, t) == _multiset(file_vertex, file_s, file_t)


@pytest.mark.parametrize("path", _corpus_params())
def test_build_glcmds_covers_every_triangle_once(path: Path) -> None:
    model = _load(path)
    words = _build(model)
    vertex, s, t = glcmd_triangles(words, model.num_vertices)
    assert words[-1] == 0
    assert len(vertex) == len(model.tri_xyz)
    assert _multiset(vertex, s, t) == _multiset(*_file_triangles(model))


@pytest.mark.parametrize("path", _corpus_params())
def test_build_glcmds_reproduces_the_file(path: Path) -> None:
    model = _load(path)
    kind = _kind(path)
    if kind is None:
        pytest.skip("no recorded provenance for this file's GL commands")
    words = _build(model)
    if kind == "qdata":
        np.testing.assert_array_equal(words, model.glcmds)
        return
    assert len(words) == len(model.glcmds)
    built = decode_glcmds(words, model.num_vertices)
    stored = decode_glcmds(model.glcmds, model.num_vertices)
    assert [(c.fan, c.offset) for c in built] == [(c.fan, c.offset) for c in stored]
    ours, theirs = _records(words, model.num_vertices), _records(model.glcmds, model.num_vertices)
    np.testing.assert_array_equal(ours[:, 1:], theirs[:, 1:])
    assert not np.any(ours[:, 0] == theirs[:, 0])


@pytest.mark.parametrize("path", _corpus_params())
def test_build_glcmds_matches_the_qdata_reference_on_corpus(path: Path) -> None:
    model = _load(path)
    reference = QdataReference(model.tri_xyz, model.tri_st, model.st,
                               model.skin_width, model.skin_height).build_glcmds()
    np.testing.assert_array_equal(_build(model), reference)


# ----------------------------------------------------------------------------------------------
# Synthetic meshes

@pytest.mark.parametrize("seed", range(40))
def test_build_glcmds_matches_the_qdata_reference_on_random_grids(seed: int) -> None:
    rng = np.random.default_rng(seed)
    tri_xyz, tri_st, st = _random_grid(rng, int(rng.integers(1, 9)), int(rng.integers(1, 7)))
    skin_width, skin_height = int(rng.integers(16, 300)), int(rng.integers(16, 300))
    words = build_glcmds(tri_xyz, tri_st, st, skin_width, skin_height)
    reference = QdataReference(tri_xyz, tri_st, st, skin_width, skin_height).build_glcmds()
    np.testing.assert_array_equal(words, reference)
    model_st = st[tri_st.astype(np.int64)].astype(np.float64)
    expected = (tri_xyz.astype(np.int32), ((model_st[..., 0] + 0.5) / skin_width).astype(np.float32),
                ((model_st[..., 1] + 0.5) / skin_height).astype(np.float32))
    assert _multiset(*glcmd_triangles(words, int(tri_xyz.max()) + 1)) == _multiset(*expected)


def test_build_glcmds_covers_4096_triangles() -> None:
    """Every triangle of a large grid lands in the strips and fans (speed: tools/benchmark.py, not here)."""
    tri_xyz, tri_st, st = _random_grid(np.random.default_rng(7), 64, 32)
    assert len(tri_xyz) >= 4096
    words = build_glcmds(tri_xyz[:4096], tri_st[:4096], st, 256, 256)
    assert len(glcmd_triangles(words, int(tri_xyz.max()) + 1)[0]) == 4096


def test_build_glcmds_of_no_triangles_is_the_terminator() -> None:
    words = build_glcmds(np.zeros((0, 3), np.uint16), np.zeros((0, 3), np.uint16),
                         np.zeros((0, 2), np.int16), 8, 8)
    np.testing.assert_array_equal(words, [0])


def test_build_glcmds_rejects_an_st_index_out_of_range() -> None:
    with pytest.raises(FormatError) as err:
        build_glcmds(np.array([[0, 1, 2]], np.uint16), np.array([[0, 1, 5]], np.uint16),
                     np.zeros((3, 2), np.int16), 8, 8)
    assert err.value.field == "index_st"


# ----------------------------------------------------------------------------------------------
# Decoder

def _word(value: float) -> int:
    return int(np.float32(value).view(np.int32))


def _command(count: int, vertices: list[int]) -> list[int]:
    words = [count]
    for n, v in enumerate(vertices):
        words += [_word(n / 8), _word(1 - n / 8), v]
    return words


def test_strips_alternate_winding_and_fans_pivot_on_the_first_vertex() -> None:
    words = np.array(_command(5, [10, 11, 12, 13, 14]) + _command(-4, [20, 21, 22, 23]) + [0],
                     dtype=np.int32)
    vertex, s, t = glcmd_triangles(words, 30)
    assert vertex.tolist() == [[10, 11, 12], [12, 11, 13], [12, 13, 14],
                               [20, 21, 22], [20, 22, 23]]
    assert s[1].tolist() == [np.float32(2 / 8), np.float32(1 / 8), np.float32(3 / 8)]
    assert t[4].tolist() == [np.float32(1), np.float32(1 - 2 / 8), np.float32(1 - 3 / 8)]
    commands = decode_glcmds(words, 30)
    assert [(c.fan, c.offset, len(c.vertex)) for c in commands] == [(False, 0, 5), (True, 64, 4)]


def test_an_empty_list_and_words_after_the_terminator() -> None:
    assert decode_glcmds(np.array([0], np.int32), 1) == []
    assert len(decode_glcmds(np.array(_command(3, [0, 1, 2]) + [0, 99, 99], np.int32), 3)) == 1
    vertex, s, t = glcmd_triangles(np.array([0], np.int32), 1)
    assert vertex.shape == s.shape == t.shape == (0, 3)


def _raises_at(words: list[int], num_vertices: int, offset: int) -> FormatError:
    with pytest.raises(FormatError) as err:
        decode_glcmds(np.array(words, dtype=np.int32), num_vertices)
    assert err.value.field == "glcmds"
    assert err.value.offset == offset
    return err.value


def test_missing_terminator() -> None:
    _raises_at(_command(3, [0, 1, 2]), 3, offset=40)
    _raises_at([], 3, offset=0)


def test_count_running_past_the_end() -> None:
    _raises_at(_command(3, [0, 1, 2]) + _command(-4, [0, 1, 2]) + [0], 3, offset=40)
    _raises_at([-2**31], 3, offset=0)


def test_vertex_index_out_of_range() -> None:
    _raises_at(_command(3, [0, 1, 3]) + [0], 3, offset=4 * (1 + 3 * 2 + 2))
    _raises_at(_command(3, [0, 1, 2]) + _command(3, [0, -1, 2]) + [0], 3, offset=4 * (10 + 1 + 3 + 2))


def test_non_finite_float() -> None:
    words = _command(3, [0, 1, 2]) + [0]
    words[1 + 3 * 1] = _word(float("nan"))
    _raises_at(words, 3, offset=4 * 4)
    words = _command(3, [0, 1, 2]) + [0]
    words[1 + 3 * 2 + 1] = _word(float("inf"))
    _raises_at(words, 3, offset=4 * 8)


@pytest.mark.parametrize("path", _corpus_params())
def test_truncated_or_inflated_file_glcmds_raise_format_error(path: Path) -> None:
    model = _load(path)
    words = model.glcmds
    for command in decode_glcmds(words, model.num_vertices):
        start = command.offset // 4
        for end in (start, start + 1, start + 3 * len(command.vertex)):
            with pytest.raises(FormatError):
                decode_glcmds(words[:end], model.num_vertices)
        inflated = words.copy()
        inflated[command.offset // 4] *= 1000
        with pytest.raises(FormatError):
            decode_glcmds(inflated, model.num_vertices)


# ----------------------------------------------------------------------------------------------
# glcmd_triangles (all commands expanded at once) against the command-by-command expansion of decode_glcmds

def _command_by_command(words: np.ndarray, num_vertices: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each command decoded (decode_glcmds, tested above) and its corners gathered, one command at a time."""
    vertex, s, t = [], [], []
    for command in decode_glcmds(words, num_vertices):
        corners = command.corner_records()
        vertex.append(command.vertex[corners])
        s.append(command.s[corners])
        t.append(command.t[corners])
    if not vertex:
        return np.zeros((0, 3), np.int32), np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32)
    return (np.concatenate(vertex).astype(np.int32), np.concatenate(s).astype(np.float32),
            np.concatenate(t).astype(np.float32))


def _same_expansion_or_error(words: np.ndarray, num_vertices: int) -> None:
    try:
        want = _command_by_command(words, num_vertices)
    except FormatError as exc:
        for check in (glcmd_triangles, check_glcmds):
            with pytest.raises(FormatError) as err:
                check(words, num_vertices)
            assert (str(err.value), err.value.field, err.value.offset) == (str(exc), exc.field, exc.offset)
        return
    check_glcmds(words, num_vertices)
    got = glcmd_triangles(words, num_vertices)
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and np.array_equal(a.view(np.uint8), b.view(np.uint8))


@pytest.mark.parametrize("path", _corpus_params())
def test_glcmd_triangles_is_the_command_by_command_expansion(path: Path) -> None:
    """The file's own list and qdata's rebuilt one, then every command cut short, inflated or pointed at a
    vertex or float that is out of range: the same triangles, or the same error at the same word."""
    model = _load(path)
    rng = np.random.default_rng(len(model.glcmds))
    for words in (model.glcmds, _build(model)):
        _same_expansion_or_error(words, model.num_vertices)
        _same_expansion_or_error(words, int(model.tri_xyz.max()))           # one vertex too few
        for command in decode_glcmds(words, model.num_vertices)[:40]:
            start = command.offset // 4
            for end in (start, start + 1, start + 3 * len(command.vertex)):
                _same_expansion_or_error(words[:end], model.num_vertices)
            for change in range(3):
                bad = words.copy()
                at = start + 1 + int(rng.integers(0, 3 * len(command.vertex)))
                bad[[start, at, at][change]] = [bad[start] * 1000, _word(float("nan")), -1][change]
                _same_expansion_or_error(bad, model.num_vertices)


@pytest.mark.parametrize("seed", range(20))
def test_glcmd_triangles_on_random_lists(seed: int) -> None:
    """Strips and fans of 0 to 9 vertices (short ones draw nothing), a random word spoiled now and then."""
    rng = np.random.default_rng(seed)
    words = []
    for _ in range(int(rng.integers(0, 30))):
        n = int(rng.integers(0, 10))
        words += _command(int(rng.choice([-1, 1])) * n, list(rng.integers(0, 50, n)))
    words = np.array(words + [0], dtype=np.int32)
    if seed % 3 == 0 and len(words) > 1:
        words[int(rng.integers(0, len(words)))] = int(rng.integers(-60, 60))
    _same_expansion_or_error(words, 50)
