"""MD3 vertex positions and normals as the engine decodes them, and their encoding (vectorised).

Positions are int16 in 1/64 units (qfiles.h ``MD3_XYZ_SCALE``); renderergl1 ``LerpMeshVertexes``
(tr_surface.c) multiplies each short by ``MD3_XYZ_SCALE``: the range is -512 .. 511.984375 units.

A normal is one int16 holding two angle bytes, ``lat << 8 | lng`` (in the file: the ``lng`` byte first).
``LerpMeshVertexes`` decodes it through the renderer's sine table (tr_init.c ``R_Init``:
``tr.sinTable[i] = sin(DEG2RAD(i * 360.0f / (FUNCTABLE_SIZE - 1)))``, FUNCTABLE_SIZE 1024)::

    lat *= 4; lng *= 4                    (FUNCTABLE_SIZE / 256)
    x = sinTable[(lat + 256) & 1023] * sinTable[lng]        cos(lat) sin(lng)
    y = sinTable[lat] * sinTable[lng]                        sin(lat) sin(lng)
    z = sinTable[(lng + 256) & 1023]                         cos(lng)

so byte b stands for the angle ``b * 4 * 360 / 1023`` degrees (a step of 1.408 degrees, not 360/256).
:func:`encode_normals` does not copy q3data's ``NormalToLatLong`` (which truncates ``degrees * 255/360``
and so lands up to a step away): it picks, among the byte pairs around the exact angles, the one whose
engine decoding is closest to the given normal (the largest dot product).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

XYZ_SCALE = np.float32(1.0 / 64)
FUNCTABLE_SIZE = 1024
_STEP_DEGREES = 4 * 360.0 / (FUNCTABLE_SIZE - 1)
NORMAL_STEP_RADIANS = np.radians(_STEP_DEGREES)   # the angle one byte of lat or lng stands for


def _sin_table() -> np.ndarray:
    degrees = np.arange(FUNCTABLE_SIZE, dtype=np.float32) * np.float32(360.0) / np.float32(FUNCTABLE_SIZE - 1)
    return np.sin(degrees.astype(np.float64) * np.pi / 180.0).astype(np.float32)


SIN_TABLE = _sin_table()


def decode_xyz(xyz: np.ndarray) -> np.ndarray:
    """float32 positions (..., 3) of int16 ``xyz`` (..., 3), as the engine scales them."""
    return np.asarray(xyz, np.int16).astype(np.float32) * XYZ_SCALE


def encode_xyz(positions: np.ndarray) -> tuple[np.ndarray, int]:
    """Nearest int16 shorts for float positions (..., 3), clipped to the int16 range, and how many
    vertices (rows) had a coordinate clipped (outside -512 .. 511.984375)."""
    q = np.asarray(positions, np.float64) * 64.0
    np.rint(q, out=q)
    info = np.iinfo(np.int16)
    if q.size and q.min() >= info.min and q.max() <= info.max:    # all finite and in range (a NaN fails both)
        return q.astype(np.int16), 0
    outside = (q < info.min) | (q > info.max) | ~np.isfinite(q)
    clipped = int(np.count_nonzero(outside.any(axis=-1))) if q.ndim else int(outside)
    q = np.nan_to_num(q, nan=0.0, posinf=info.max, neginf=info.min)
    return np.clip(q, info.min, info.max).astype(np.int16), clipped


def normal_bytes(packed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(lat, lng) byte arrays of packed normals ``lat << 8 | lng``."""
    packed = np.asarray(packed).astype(np.uint16)
    return (packed >> 8).astype(np.uint8), (packed & 0xFF).astype(np.uint8)


def pack_normals(lat: np.ndarray, lng: np.ndarray) -> np.ndarray:
    return (np.asarray(lat, np.uint16) << 8 | np.asarray(lng, np.uint16)).astype(np.uint16)


def _decode_bytes(lat: np.ndarray, lng: np.ndarray) -> np.ndarray:
    li = np.asarray(lat, np.int64) * 4
    gi = np.asarray(lng, np.int64) * 4
    sin_lng = SIN_TABLE[gi]
    out = np.empty(li.shape + (3,), np.float32)
    out[..., 0] = SIN_TABLE[(li + FUNCTABLE_SIZE // 4) & (FUNCTABLE_SIZE - 1)] * sin_lng
    out[..., 1] = SIN_TABLE[li] * sin_lng
    out[..., 2] = SIN_TABLE[(gi + FUNCTABLE_SIZE // 4) & (FUNCTABLE_SIZE - 1)]
    return out


def decode_normals(packed: np.ndarray) -> np.ndarray:
    """float32 unit vectors (..., 3) of packed normals (...,), as renderergl1 decodes them."""
    return _decode_bytes(*normal_bytes(packed))


_CHUNK = 16384      # normals compared at once: their (normals, 18) candidate arrays stay in cache


@lru_cache(maxsize=1)
def _decoded_columns() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x, y and z (float64 of the engine's float32) of every packed normal ``lat << 8 | lng``."""
    lat, lng = np.divmod(np.arange(1 << 16), 256)
    decoded = _decode_bytes(lat, lng).astype(np.float64)
    return tuple(np.ascontiguousarray(decoded[:, k]) for k in range(3))


def encode_normals(normals: np.ndarray) -> np.ndarray:
    """Packed uint16 normals (...,) for vectors (..., 3): :func:`encode_each_normal`, but (F, V, 3) frames
    encode only the normals that are not bit for bit the vertex's normal on the frame before (a part of the
    model that does not move); the others are copied from there (the same bits give the same pair)."""
    vec = np.ascontiguousarray(normals, np.float64)
    if vec.ndim != 3 or len(vec) < 2:
        return encode_each_normal(vec)
    bits = vec.view(np.int64)
    repeat = bits[1:, :, 0] == bits[:-1, :, 0]
    repeat &= bits[1:, :, 1] == bits[:-1, :, 1]
    repeat &= bits[1:, :, 2] == bits[:-1, :, 2]
    if not repeat.any():
        return encode_each_normal(vec)
    source = np.arange(len(vec))[:, None].repeat(vec.shape[1], axis=1)      # the frame each is encoded on
    source[1:][repeat] = 0
    np.maximum.accumulate(source, axis=0, out=source)
    first = np.zeros(vec.shape[:2], bool)
    first[0] = True
    first[1:] = ~repeat
    out = np.empty(vec.shape[:2], np.uint16)
    out[first] = encode_each_normal(vec[first])
    return np.take_along_axis(out, source, axis=0)


def encode_each_normal(normals: np.ndarray) -> np.ndarray:
    """Packed uint16 normals (...,) for vectors (..., 3): the byte pair whose engine decoding is closest.

    The exact angles give a first pair (two: see below); each pair and its eight neighbours (lat wraps
    around, lng stays in 0..255) are decoded and the one nearest the unit normal (Euclidean distance:
    the decoded vectors are not exactly unit length) wins, the first of the 18 on a tie. A zero vector
    gives 0 (up). The decodings come from a table of all 65,536 pairs and the squared distance is added
    up as ``(dx * dx + dy * dy) + dz * dz``, the order ``np.sum`` adds three values in (the same choices
    as summing (normals, 18, 3) arrays, tests/md3/test_md3_codec.py)."""
    vec = np.asarray(normals, np.float64)
    shape = vec.shape[:-1]
    vec = vec.reshape(-1, 3)
    length = np.linalg.norm(vec, axis=1)
    good = np.isfinite(length) & (length > 0)
    if good.all():
        unit = vec / length[:, None]
    else:
        unit = np.zeros_like(vec)
        unit[:, 2] = 1.0
        unit[good] = vec[good] / length[good, None]
    to_bytes = 1.0 / NORMAL_STEP_RADIANS
    azimuth = np.arctan2(unit[:, 1], unit[:, 0])
    polar = np.arccos(np.clip(unit[:, 2], -1.0, 1.0))
    # (azimuth, polar) and (azimuth + 180, 360 - polar) name the same direction; the table's 1023 steps
    # per turn make the two grids differ slightly, so both are searched
    lat0 = np.rint(np.mod(np.stack([azimuth, azimuth + np.pi], 1), 2 * np.pi) * to_bytes).astype(np.int64)
    lng0 = np.rint(np.stack([polar, 2 * np.pi - polar], 1) * to_bytes).astype(np.int64)
    offsets = np.array([-1, 0, 1], np.int64)
    lat = (lat0[:, :, None] + offsets) & 255                     # (n, 2, 3): lat wraps around
    lat <<= 8
    lng = lng0[:, :, None] + offsets                             # (n, 2, 3): lng stays in 0..255
    np.maximum(lng, 0, out=lng)
    np.minimum(lng, 255, out=lng)
    columns = _decoded_columns()
    best = np.empty(len(unit), np.uint16)
    for start in range(0, len(unit), _CHUNK):
        part = slice(start, start + _CHUNK)
        candidates = (lat[part, :, :, None] | lng[part, :, None, :]).reshape(-1, 18)   # lat << 8 | lng
        target = unit[part]
        difference = np.take(columns[0], candidates) - target[:, 0:1]
        distance = difference * difference
        for k in (1, 2):
            difference = np.take(columns[k], candidates) - target[:, k:k + 1]
            difference *= difference
            distance += difference
        best[part] = np.take_along_axis(candidates, np.argmin(distance, axis=1)[:, None], 1)[:, 0]
    return best.reshape(shape)
