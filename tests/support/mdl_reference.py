"""An independent Quake MDL decoder for the tests, written from the format notes with ``struct`` only.

It shares no code with ``formats.mdl.codec`` so the tests compare two separate readings of each file.
It trusts its input (no validation) and walks the file with a cursor, the way Quake's
``Mod_LoadAliasModel`` does.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass


@dataclass
class RefSkin:
    intervals: list[float] | None          # None for a single skin
    images: list[bytes]                     # each skinwidth * skinheight palette indices


@dataclass
class RefPose:
    name_raw: bytes                         # all 16 bytes of the name field
    bbox_min: tuple[int, int, int, int]
    bbox_max: tuple[int, int, int, int]
    verts: list[tuple[int, int, int, int]]  # x, y, z, normal index
    low: list[tuple[int, int, int, int]] | None = None   # MD16: the second block (low bytes)


@dataclass
class RefFrame:
    intervals: list[float] | None           # None for a simple frame
    bbox_min: tuple[int, int, int, int]     # group bbox (the pose's own bbox for simple frames)
    bbox_max: tuple[int, int, int, int]
    poses: list[RefPose]


@dataclass
class RefMdl:
    scale: tuple[float, float, float]
    translate: tuple[float, float, float]
    radius: float
    eye: tuple[float, float, float]
    num_skins: int
    skin_width: int
    skin_height: int
    num_verts: int
    num_tris: int
    num_frames: int
    synctype: int
    flags: int
    size: float
    skins: list[RefSkin]
    texcoords: list[tuple[int, int, int]]   # onseam, s, t
    tris: list[tuple[int, ...]]             # facesfront, v0, v1, v2 (RAPO: then st0, st1, st2)
    frames: list[RefFrame]
    end: int                                # offset just past the last frame
    ident: bytes = b"IDPO"

    @property
    def pose_names(self) -> list[str]:
        return [p.name_raw.split(b"\0")[0].decode("latin-1") for f in self.frames for p in f.poses]


def decode(data: bytes) -> RefMdl:
    ident, version = struct.unpack_from("<4si", data, 0)
    assert (ident, version) in ((b"IDPO", 6), (b"MD16", 6), (b"RAPO", 50))
    floats = struct.unpack_from("<10f", data, 8)
    ints = struct.unpack_from("<8i", data, 48)
    (size,) = struct.unpack_from("<f", data, 80)
    num_skins, sw, sh, nv, nt, nf, synctype, flags = ints
    pos = 84
    num_st = nv
    if ident == b"RAPO":                    # uHexen2 genmodel.h newmdl_t: int num_st_verts after size
        (num_st,) = struct.unpack_from("<i", data, 84)
        pos = 88
    npix = sw * sh

    skins = []
    for _ in range(num_skins):
        (kind,) = struct.unpack_from("<i", data, pos)
        pos += 4
        if kind == 0:
            skins.append(RefSkin(None, [data[pos:pos + npix]]))
            pos += npix
        else:
            (n,) = struct.unpack_from("<i", data, pos)
            pos += 4
            intervals = list(struct.unpack_from(f"<{n}f", data, pos))
            pos += 4 * n
            images = []
            for _ in range(n):
                images.append(data[pos:pos + npix])
                pos += npix
            skins.append(RefSkin(intervals, images))

    texcoords = []
    for _ in range(num_st):
        texcoords.append(struct.unpack_from("<3i", data, pos))
        pos += 12
    tris = []
    for _ in range(nt):                     # RAPO: dnewtriangle_t {int facesfront; ushort vert[3], st[3]}
        tris.append(struct.unpack_from("<i6H" if ident == b"RAPO" else "<4i", data, pos))
        pos += 16

    def pose(at: int) -> tuple[RefPose, int]:
        lo = struct.unpack_from("<4B", data, at)
        hi = struct.unpack_from("<4B", data, at + 4)
        name = data[at + 8:at + 24]
        at += 24
        verts = []
        for _ in range(nv):
            verts.append(struct.unpack_from("<4B", data, at))
            at += 4
        low = None
        if ident == b"MD16":                # QuakeForge: a second numverts block of low bytes
            low = []
            for _ in range(nv):
                low.append(struct.unpack_from("<4B", data, at))
                at += 4
        return RefPose(name, lo, hi, verts, low), at

    frames = []
    for _ in range(nf):
        (kind,) = struct.unpack_from("<i", data, pos)
        pos += 4
        if kind == 0:
            p, pos = pose(pos)
            frames.append(RefFrame(None, p.bbox_min, p.bbox_max, [p]))
        else:
            (n,) = struct.unpack_from("<i", data, pos)
            lo = struct.unpack_from("<4B", data, pos + 4)
            hi = struct.unpack_from("<4B", data, pos + 8)
            pos += 12
            intervals = list(struct.unpack_from(f"<{n}f", data, pos))
            pos += 4 * n
            poses = []
            for _ in range(n):
                p, pos = pose(pos)
                poses.append(p)
            frames.append(RefFrame(intervals, lo, hi, poses))

    return RefMdl(floats[0:3], floats[3:6], floats[6], floats[7:10], num_skins, sw, sh, nv, nt, nf,
                  synctype, flags, size, skins, texcoords, tris, frames, pos, ident)
