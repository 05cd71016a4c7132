"""The three flavours of the Quake MDL: their records, and the blocks in which they differ.

=======  =====  ===============================================================================
ident    vers.  differences from IDPO (everything else, skins and frame groups included, is the same)
=======  =====  ===============================================================================
IDPO     6      Quake: header 84 bytes; ``numverts`` x {int32 onseam, s, t}; triangles
                {int32 facesfront, int32 vertindex[3]} (16 bytes); pose = bboxmin, bboxmax,
                name[16], ``numverts`` x {uint8 x, y, z, normal}.
MD16     6      QuakeForge's 16-bit MDL: each pose stores ``numverts`` trivertx records (the high
                bytes, whose normal index is used) followed by ``numverts`` more (the low bytes);
                position = translate + scale x (high + low / 256).  QuakeForge
                ``libs/models/alias/model_alias.c`` (``HEADER_MDL16``: ``extra`` skips a second
                ``numverts`` block in every pose of single frames and groups, version must be 6) and
                ``libs/models/alias/vulkan_model_alias.c`` (``pos = 256 * high + low``, scale / 256); FTE
                ``engine/common/com_mesh.c`` (``Q1MDL_LoadPose16``: ``high * scale + low * scale / 256
                + scale_origin``, normal from the high block).
RAPO     50     Hexen II: Portal of Praevus: header + int32 ``num_st_verts`` (88 bytes); skins;
                ``num_st_verts`` x {int32 onseam, s, t}; triangles {int32 facesfront, uint16
                vertindex[3], uint16 stindex[3]} (16 bytes); frames as IDPO.  uHexen2
                ``common/genmodel.h`` (``newmdl_t``, ``dnewtriangle_t``, ``ALIAS_NEWVERSION`` 50) and
                ``engine/h2shared/gl_model.c`` (``Mod_LoadAliasModelNew``); the seam rule reads the
                record ``stindex`` points at: ``s += skinwidth / 2`` where the triangle's facesfront is
                0 and the record is onseam (``engine/h2shared/gl_mesh.c``, ``BuildTris``).  FTE loads
                it too (``Mod_LoadQ1Model``, version 50, in builds with HEXEN2).
=======  =====  ===============================================================================

The flags field is Quake's ``EF_`` bits 0-7; Hexen II gives bits 8-24 meanings of its own
(uHexen2 ``engine/h2shared/gl_model.h``), listed in :data:`HEXEN2_FLAGS`.  Bit 14 (Hexen II's
``EF_HOLEY``, palette index 0 see-through) is also read by Quake source ports: QuakeSpasm's
``MF_HOLEY`` (``Quake/gl_model.h``) makes index 255 transparent.
"""
from __future__ import annotations

import numpy as np

from ..binary import read_records
from ..errors import FormatError
from ..magics import magic_problem

IDPO, MD16, RAPO = "IDPO", "MD16", "RAPO"
VARIANTS = (IDPO, MD16, RAPO)
IDENTS = {b"IDPO": IDPO, b"MD16": MD16, b"RAPO": RAPO}
VERSIONS = {IDPO: 6, MD16: 6, RAPO: 50}
ENGINES = {IDPO: "every Quake engine",
           MD16: "QuakeForge and FTE only",
           RAPO: "Hexen II engines (with the mission pack) and FTE built with Hexen II support only"}

TEXCOORD = np.dtype([("onseam", "<i4"), ("s", "<i4"), ("t", "<i4")])
TRIANGLE = np.dtype([("facesfront", "<i4"), ("vertindex", "<i4", (3,))])
RAPO_TRIANGLE = np.dtype([("facesfront", "<i4"), ("vertindex", "<u2", (3,)), ("stindex", "<u2", (3,))])
RAPO_EXTRA = np.dtype([("num_st_verts", "<i4")])      # after the 84-byte IDPO header
RAPO_INDEX_LIMIT = 65536                                # uint16 indices

# Hexen II's own EF_ bits (above Quake's eight), uHexen2 engine/h2shared/gl_model.h.
# Quake's model effect flags, bits 0-7 (id Quake ``WinQuake/gl_model.h``: EF_ROCKET 1 .. EF_TRACER3 128;
# ``CL_RelinkEntities`` in ``cl_main.c`` draws the trails, ``EF_ROTATE`` spins the model).
QUAKE_FLAGS = (
    (0, "rocket", "Rocket Trail"), (1, "grenade", "Grenade Smoke"), (2, "gib", "Blood Gib"), (3, "rotate", "Rotate"),
    (4, "tracer", "Green Tracer"), (5, "zombie_gib", "Zombie Gib"), (6, "tracer2", "Orange Tracer"),
    (7, "tracer3", "Purple Tracer"))
HEXEN2_FLAGS = (
    (8, "fireball", "Fireball Trail"), (9, "ice", "Ice Trail"), (10, "mip_map", "Mip Maps"),
    (11, "spit", "Spit Trail"), (12, "transparent", "Transparent"), (13, "spell", "Spell Spray"),
    (14, "holey", "Holey (see-through texels)"), (15, "special_trans", "Special Translucency"),
    (16, "face_view", "Faces Viewer"), (17, "vorp_missile", "Vorpal Missile Trail"),
    (18, "set_staff", "Set Staff Bob"), (19, "magic_missile", "Magic Missile Trail"),
    (20, "boneshard", "Bone Shard Trail"), (21, "scarab", "Scarab Trail"), (22, "acidball", "Acid Ball Trail"),
    (23, "bloodshot", "Blood Shot Trail"), (24, "mip_map_far", "Far Mip Map"))
HEXEN2_FLAG_MASK = sum(1 << bit for bit, _, _ in HEXEN2_FLAGS)


def quake_flag_labels(flags: int) -> list[str]:
    """What Quake's flags set in ``flags`` (bits 0-7) do, in bit order: ``["rocket trail", "rotate"]``."""
    return [label.lower() for bit, _, label in QUAKE_FLAGS if flags & (1 << bit)]


def hexen2_flag_names(flags: int) -> list[str]:
    """The Hexen II ``EF_`` names set in ``flags`` (bits 8-24), in bit order."""
    return [name for bit, name, _ in HEXEN2_FLAGS if flags & (1 << bit)]


def variant_of(data: bytes, version: int) -> str:
    """The variant the file's first four bytes name; FormatError for an unknown ident or the wrong version."""
    variant = IDENTS.get(bytes(data[:4]))
    if variant is None:
        raise FormatError(magic_problem(data, tuple(IDENTS)), field="ident", offset=0)
    if version != VERSIONS[variant]:
        raise FormatError(f"version is {version}, expected {VERSIONS[variant]} for {variant}", field="version",
                          offset=4)
    return variant


def read_rapo_triangles(data: bytes, pos: int, count: int, num_verts: int, num_st: int
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(facesfront, vertindex (T,3) int32, stindex (T,3) int32), each index checked against its table."""
    tris = read_records(data, pos, RAPO_TRIANGLE, count, "triangles")
    vertindex = tris["vertindex"].astype(np.int32)
    stindex = tris["stindex"].astype(np.int32)
    for name, table, limit, skip in (("vertindex", vertindex, num_verts, 4), ("stindex", stindex, num_st, 10)):
        bad = table >= limit
        if bad.any():
            tri, corner = (int(i) for i in np.argwhere(bad)[0])
            raise FormatError(f"triangle {tri} {name}[{corner}] = {int(table[tri, corner])} is out of range "
                              f"({'numverts' if name == 'vertindex' else 'num_st_verts'} {limit})", field=name,
                              offset=pos + tri * RAPO_TRIANGLE.itemsize + skip + 2 * corner)
    return np.ascontiguousarray(tris["facesfront"]), vertindex, stindex


def rapo_triangle_bytes(facesfront: np.ndarray, vertindex: np.ndarray, stindex: np.ndarray) -> bytes:
    for name, table in (("vertindex", vertindex), ("stindex", stindex)):
        table = np.asarray(table)
        if table.size and (int(table.min()) < 0 or int(table.max()) >= RAPO_INDEX_LIMIT):
            raise FormatError(f"{name} outside 0..{RAPO_INDEX_LIMIT - 1}: RAPO stores uint16 indices", field=name)
    if np.shape(stindex) != np.shape(vertindex):
        raise FormatError(f"stindex {np.shape(stindex)} and vertindex {np.shape(vertindex)} differ",
                          field="st_triangles")
    tris = np.zeros(len(vertindex), RAPO_TRIANGLE)
    tris["facesfront"], tris["vertindex"], tris["stindex"] = facesfront, vertindex, stindex
    return tris.tobytes()


def quantize16(positions: np.ndarray, scale: np.ndarray, translate: np.ndarray) -> np.ndarray:
    """(P, V, 3) uint16 nearest 16-bit values (high * 256 + low) on the grid (scale, translate), the
    lattice step being scale / 256: at most half of 1/256 of the 8-bit step from each position."""
    pos = np.asarray(positions, np.float64)
    step = np.asarray(scale, np.float64) / 256.0
    inverse = np.divide(1.0, step, out=np.zeros_like(step), where=step > 0)
    q = np.rint((pos - np.asarray(translate, np.float64)) * inverse)
    return np.clip(q, 0, 65535).astype(np.uint16)


def decode16(high: np.ndarray, low: np.ndarray, scale: np.ndarray, translate: np.ndarray) -> np.ndarray:
    """float32 positions as QuakeForge and FTE decode an MD16 pose."""
    scale = np.asarray(scale, np.float32)
    return (np.asarray(high, np.float32) * scale + np.asarray(low, np.float32) * (scale / np.float32(256))
            + np.asarray(translate, np.float32)).astype(np.float32)


def frames_on_lattice16(positions: np.ndarray, scale: np.ndarray, translate: np.ndarray) -> np.ndarray:
    """(F,) True where every position of the frame is the MD16 decoding of its nearest 16-bit value
    (within a thousandth of the 16-bit step plus float32 rounding of the largest coordinate)."""
    fine = quantize16(positions, scale, translate)
    decoded = decode16(fine >> 8, fine & 255, scale, translate)
    scale = np.asarray(scale, np.float32)
    extent = np.maximum(np.abs(np.asarray(translate, np.float32)) + 256 * np.abs(scale), 1.0)
    tolerance = 1e-3 * scale / 256 + 4e-7 * extent
    error = np.abs(decoded - np.asarray(positions, np.float32))
    return np.all(error <= tolerance, axis=(1, 2))
