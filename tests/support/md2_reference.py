"""An independent MD2 decoder for the tests, written from the format notes with ``struct`` only.

It shares no code with ``formats.md2.codec`` so the tests compare two separate readings of each file.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass


@dataclass
class RefMd2:
    skin_width: int
    skin_height: int
    skins: list[str]
    st: list[tuple[int, int]]
    tris: list[tuple[tuple[int, int, int], tuple[int, int, int]]]
    frame_names: list[str]
    positions: list[list[tuple[float, float, float]]]   # per frame, per vertex (float32 maths)
    packed: list[list[tuple[int, int, int, int]]]        # per frame, per vertex (x, y, z, normal)
    scale: list[tuple[float, float, float]]
    translate: list[tuple[float, float, float]]
    glcmds: list[int]


def _f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def decode(data: bytes) -> RefMd2:
    (ident, version, sw, sh, framesize, n_skins, n_xyz, n_st, n_tris, n_gl, n_frames,
     o_skins, o_st, o_tris, o_frames, o_gl, o_end) = struct.unpack_from("<4s16i", data, 0)
    assert ident == b"IDP2" and version == 8
    skins = [data[o_skins + 64 * i: o_skins + 64 * (i + 1)].split(b"\0")[0].decode("latin-1")
             for i in range(n_skins)]
    st = [struct.unpack_from("<2h", data, o_st + 4 * i) for i in range(n_st)]
    tris = []
    for i in range(n_tris):
        v = struct.unpack_from("<6H", data, o_tris + 12 * i)
        tris.append((v[:3], v[3:]))
    names, positions, packed, scales, translates = [], [], [], [], []
    for f in range(n_frames):
        base = o_frames + f * framesize
        sx, sy, sz, tx, ty, tz = struct.unpack_from("<6f", data, base)
        names.append(data[base + 24: base + 40].split(b"\0")[0].decode("latin-1"))
        scales.append((sx, sy, sz))
        translates.append((tx, ty, tz))
        frame_pos, frame_packed = [], []
        for i in range(n_xyz):
            x, y, z, n = struct.unpack_from("<4B", data, base + 40 + 4 * i)
            frame_packed.append((x, y, z, n))
            frame_pos.append((_f32(_f32(x * sx) + tx), _f32(_f32(y * sy) + ty), _f32(_f32(z * sz) + tz)))
        positions.append(frame_pos)
        packed.append(frame_packed)
    glcmds = list(struct.unpack_from(f"<{n_gl}i", data, o_gl))
    return RefMd2(sw, sh, skins, st, tris, names, positions, packed, scales, translates, glcmds)
