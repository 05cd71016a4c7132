"""Seeded fuzz cases for the MD2, MDL and MS3D parsers (bpy-free).

Every case is a :class:`Case` ``(format, name, data)``: bytes a parser must either decode or refuse
with :class:`formats.errors.FormatError`. The name says how the bytes were made, e.g.
``md2/inflate/assimp/faerie.md2/num_frames=2147483647``; the same ``(format, seed)`` always gives the
same cases in the same order, so a failing name is reproduced by ``cases(format, count, seed)``.

Two families of generators, mixed fairly (round robin) by :func:`iter_cases`:

* mutations of seed files — the corpus (``../shared/corpus/<format>``) or, when it is absent, a few
  generated models: ``bitflip`` (1-8 bits, half of them inside header and count fields),
  ``overwrite`` (boundary values 0, 0xFF, 0x7FFFFFFF, 0x80000000... at aligned positions and at
  every typed field, NaN and infinities in float fields), ``truncate`` (every block boundary of every
  seed once, in a seeded order, then cuts next to boundaries), ``inflate`` (each count and size
  field set to -1, 0, 2**31-1, 65535, one more than the file can hold...), ``blocks`` (a block
  duplicated, removed or swapped with its neighbour) and ``offsets`` (MD2: ``ofs_*`` fields swapped
  or pointing into other blocks; MDL: skin and frame type fields retyped, or the ident and version
  rewritten to another flavour (IDPO, MD16, RAPO); MS3D: version and
  optional-block subversions rewritten, optional blocks repeated, dropped or moved to the end);
* structure-aware generators that build random but valid-ish models through the codecs' own
  dataclasses (random sizes, groups or none, optional blocks; MDL in all three flavours, and the
  MDL seeds always include generated MD16 and RAPO files, the corpus having none) and serialize them: ``generated``
  yields them as they are, ``generated+corrupt`` after one of the mutations above.

Block boundaries and typed fields come from :func:`layout`, which walks a file the codec accepts
(MD2 needs only its header). :func:`pcx_cases` mutates the PCX skins the MD2 import decodes.

The checks live here too, so the tests and ``tools/fuzz_campaign.py`` judge cases alike:
:func:`run_codec_case` (no Blender) and :func:`import_outcome` (given ``bpy``; this module never
imports it).
"""
from __future__ import annotations

import random
import struct
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import islice
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

CHECKOUT = Path(__file__).resolve().parents[1]
if str(CHECKOUT) not in sys.path:
    sys.path.insert(0, str(CHECKOUT))

from formats.errors import FormatError  # noqa: E402
from formats import md2, mdl, ms3d, pcx  # noqa: E402
from formats.md2_glcmds import build_glcmds  # noqa: E402

CORPUS = CHECKOUT.parent / "shared" / "corpus"
FORMATS = ("md2", "mdl", "ms3d")
PARSERS: dict[str, Callable[[bytes], object]] = {
    "md2": md2.parse_md2, "mdl": mdl.parse_mdl, "ms3d": ms3d.parse_ms3d}
SERIALIZERS: dict[str, Callable[[object], bytes]] = {
    "md2": md2.serialize_md2, "mdl": mdl.serialize_mdl, "ms3d": ms3d.serialize_ms3d}

INT32_BOUNDARY = (0, 0xFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 1, 0xFFFF, 0x10000)
UINT16_BOUNDARY = (0, 1, 0x7FFF, 0x8000, 0xFFFF)
UINT8_BOUNDARY = (0, 1, 0x7F, 0x80, 0xFF)
FLOAT_SPECIAL = (float("nan"), float("inf"), float("-inf"), 3.4e38, -3.4e38, 1e-45, -0.0, 0.0)


@dataclass(frozen=True)
class Case:
    """One fuzz input: ``format`` is md2, mdl or ms3d; ``name`` says how ``data`` was made."""
    format: str
    name: str
    data: bytes


@dataclass(frozen=True)
class Field:
    """A typed field of a file: ``kind`` is a numpy format (``<i4``, ``<u2``, ``u1``, ``i1``, ``<f4``);
    ``role`` is count, size, offset, type, index or float."""
    name: str
    offset: int
    kind: str
    role: str


@dataclass
class Layout:
    """Where a file's blocks start and end and where its typed fields sit; ``walked`` is where the
    walk through the parsed model ended (None when only the header was read)."""
    boundaries: list[int] = field(default_factory=list)
    fields: list[Field] = field(default_factory=list)
    blocks: list[tuple[str, int, int]] = field(default_factory=list)
    walked: int | None = None

    def finish(self, size: int) -> "Layout":
        points = {0, size}
        for _, start, end in self.blocks:
            points.update((start, end))
        points.update(self.boundaries)
        self.boundaries = sorted(p for p in points if 0 <= p <= size)
        self.fields = [f for f in self.fields if 0 <= f.offset and f.offset + np.dtype(f.kind).itemsize <= size]
        self.blocks = [(n, s, e) for n, s, e in self.blocks if 0 <= s < e <= size]
        return self


@dataclass(frozen=True)
class Seed:
    name: str
    data: bytes
    layout: Layout


# ---------------------------------------------------------------------------------------------
# layouts

def layout(fmt: str, data: bytes) -> Layout:
    """Block boundaries and typed fields of ``data``; header-only when the codec refuses it."""
    return {"md2": _md2_layout, "mdl": _mdl_layout, "ms3d": _ms3d_layout}[fmt](data)


def _header_fields(dtype: np.dtype, roles: dict[str, str]) -> list[Field]:
    out = []
    for name, role in roles.items():
        sub, offset = dtype.fields[name][:2]
        base = sub.base if sub.shape else sub
        for k in range(int(np.prod(sub.shape)) if sub.shape else 1):
            out.append(Field(name if not sub.shape else f"{name}[{k}]", offset + k * base.itemsize,
                             base.str, role))
    return out


def _md2_layout(data: bytes) -> Layout:
    out = Layout(boundaries=[4, 8, md2.HEADER.itemsize])
    if len(data) < md2.HEADER.itemsize:
        return out.finish(len(data))
    h = np.frombuffer(data, md2.HEADER, count=1)[0]
    roles = {"skinwidth": "size", "skinheight": "size", "framesize": "size"}
    roles.update({n: "count" for n in md2.HEADER.names if n.startswith("num_")})
    roles.update({n: "offset" for n in md2.HEADER.names if n.startswith("ofs_")})
    out.fields += _header_fields(md2.HEADER, roles)
    framesize = max(int(h["framesize"]), 1)
    sizes = {"skins": md2.SKIN.itemsize, "st": md2.ST.itemsize, "tris": md2.TRIANGLE.itemsize,
             "frames": framesize, "glcmds": 4}
    for name, size in sizes.items():
        count, start = int(h[f"num_{name}"]), int(h[f"ofs_{name}"])
        if 0 <= start <= len(data) and count > 0:
            out.blocks.append((name, start, min(start + count * size, len(data))))
    out.boundaries.append(int(h["ofs_end"]))
    count, start = int(h["num_frames"]), int(h["ofs_frames"])
    if 0 < count and 0 <= start:
        for f in range(min(count, 1024)):
            at = start + f * framesize
            out.boundaries += [at, at + md2.FRAME_HEADER.itemsize]
            if f < 2 or f == count - 1:
                out.fields += [Field(f"frame {f} scale[{k}]", at + 4 * k, "<f4", "float") for k in range(6)]
    at = int(h["ofs_tris"])
    if int(h["num_tris"]) > 0:
        out.fields += [Field("triangle 0 index_xyz[0]", at, "<u2", "index"),
                       Field("triangle 0 index_st[2]", at + 10, "<u2", "index")]
    at = int(h["ofs_glcmds"])
    if int(h["num_glcmds"]) > 1:
        out.fields += [Field("glcmd 0 count", at, "<i4", "count"), Field("glcmd 0 s", at + 4, "<f4", "float"),
                       Field("glcmd 0 vertex", at + 12, "<i4", "index")]
    return out.finish(len(data))


def _mdl_layout(data: bytes) -> Layout:
    rapo = data[:4] == b"RAPO"
    header_end = mdl.HEADER.itemsize + (4 if rapo else 0)
    out = Layout(boundaries=[4, 8, header_end])
    roles = {"numskins": "count", "skinwidth": "size", "skinheight": "size", "numverts": "count",
             "numtris": "count", "numframes": "count", "synctype": "type", "flags": "type"}
    roles.update({n: "float" for n in ("scale", "translate", "boundingradius", "eyeposition", "size")})
    out.fields += _header_fields(mdl.HEADER, roles)
    if rapo:
        out.fields.append(Field("num_st_verts", mdl.HEADER.itemsize, "<i4", "count"))
    try:
        model = mdl.parse_mdl(data)
    except FormatError:
        return out.finish(len(data))
    w, h, v = model.skin_width, model.skin_height, model.num_vertices
    st = len(model.s)
    pos = header_end
    for i, skin in enumerate(model.skins):
        out.fields.append(Field(f"skin {i} type", pos, "<i4", "type"))
        if skin.intervals is None:
            size = 4 + w * h
        else:
            n = len(skin.images)
            out.fields += [Field(f"skin {i} count", pos + 4, "<i4", "count"),
                           Field(f"skin {i} interval 0", pos + 8, "<f4", "float")]
            size = 8 + 4 * n + n * w * h
            out.boundaries += [pos + 8 + 4 * n + k * w * h for k in range(n)]
        out.blocks.append((f"skin {i}", pos, pos + size))
        pos += size
    if st:
        out.blocks.append(("texcoords", pos, pos + 12 * st))
        out.fields += [Field("texcoord 0 onseam", pos, "<i4", "index"),
                       Field("texcoord 0 s", pos + 4, "<i4", "index"),
                       Field(f"texcoord {st - 1} t", pos + 12 * st - 4, "<i4", "index")]
    pos += 12 * st
    t = len(model.triangles)
    if t and rapo:             # {int32 facesfront, uint16 vertindex[3], uint16 stindex[3]}
        out.blocks.append(("triangles", pos, pos + 16 * t))
        out.fields += [Field("triangle 0 facesfront", pos, "<i4", "type"),
                       Field("triangle 0 vertindex[0]", pos + 4, "<u2", "index"),
                       Field("triangle 0 stindex[0]", pos + 10, "<u2", "index"),
                       Field(f"triangle {t - 1} stindex[2]", pos + 16 * t - 2, "<u2", "index")]
    elif t:
        out.blocks.append(("triangles", pos, pos + 16 * t))
        out.fields += [Field("triangle 0 facesfront", pos, "<i4", "type"),
                       Field("triangle 0 vertindex[0]", pos + 4, "<i4", "index"),
                       Field(f"triangle {t - 1} vertindex[2]", pos + 16 * t - 4, "<i4", "index")]
    pos += 16 * t
    pose = 24 + (8 if model.variant == "MD16" else 4) * v
    for i, slot in enumerate(model.frames):
        out.fields.append(Field(f"frame {i} type", pos, "<i4", "type"))
        if slot.intervals is None:
            size = 4 + pose
        else:
            n = slot.num_poses
            out.fields += [Field(f"frame {i} count", pos + 4, "<i4", "count"),
                           Field(f"frame {i} interval 0", pos + 16, "<f4", "float")]
            size = 16 + 4 * n + n * pose
            out.boundaries += [pos + 16 + 4 * n + k * pose for k in range(n)]
        out.blocks.append((f"frame {i}", pos, pos + size))
        pos += size
    out.walked = pos
    if pos < len(data):
        out.blocks.append(("trailing", pos, len(data)))
    return out.finish(len(data))


def _ms3d_layout(data: bytes) -> Layout:
    out = Layout(boundaries=[10, ms3d.HEADER.itemsize],
                 fields=[Field("version", 10, "<i4", "type"), Field("nverts", 14, "<u2", "count")])
    try:
        model = ms3d.parse_ms3d(data)
    except FormatError:
        return out.finish(len(data))
    pos = 16
    nv, nt = model.num_vertices, model.num_triangles
    out.blocks.append(("vertices", pos, pos + 15 * nv))
    if nv:
        out.fields += [Field("vertex 0 x", pos + 1, "<f4", "float"),
                       Field("vertex 0 bone", pos + 13, "i1", "index")]
    pos += 15 * nv
    out.fields.append(Field("ntris", pos, "<u2", "count"))
    pos += 2
    out.blocks.append(("triangles", pos, pos + 70 * nt))
    if nt:
        out.fields += [Field("triangle 0 v[0]", pos + 2, "<u2", "index"),
                       Field("triangle 0 normal", pos + 8, "<f4", "float"),
                       Field("triangle 0 group", pos + 69, "u1", "index")]
    pos += 70 * nt
    out.fields.append(Field("ngroups", pos, "<u2", "count"))
    pos += 2
    for g, group in enumerate(model.groups):
        size = ms3d.MIN_GROUP_SIZE + 2 * len(group.triangles)
        out.fields += [Field(f"group {g} count", pos + 33, "<u2", "count"),
                       Field(f"group {g} material", pos + size - 1, "i1", "index")]
        if len(group.triangles):
            out.fields.append(Field(f"group {g} triangle 0", pos + 35, "<u2", "index"))
        out.blocks.append((f"group {g}", pos, pos + size))
        pos += size
    out.fields.append(Field("nmaterials", pos, "<u2", "count"))
    pos += 2
    if model.materials:
        out.fields.append(Field("material 0 shininess", pos + 96, "<f4", "float"))
        out.blocks.append(("materials", pos, pos + ms3d.MATERIAL.itemsize * len(model.materials)))
    pos += ms3d.MATERIAL.itemsize * len(model.materials)
    out.fields += [Field("animation fps", pos, "<f4", "float"), Field("total_frames", pos + 8, "<i4", "count")]
    out.blocks.append(("animation", pos, pos + 12))
    pos += 12
    out.fields.append(Field("njoints", pos, "<u2", "count"))
    pos += 2
    for j, joint in enumerate(model.joints):
        size = ms3d.JOINT_HEADER.itemsize + ms3d.KEY.itemsize * (len(joint.rot_keys) + len(joint.pos_keys))
        out.fields += [Field(f"joint {j} nrot", pos + 89, "<u2", "count"),
                       Field(f"joint {j} npos", pos + 91, "<u2", "count"),
                       Field(f"joint {j} rotation", pos + 65, "<f4", "float")]
        if len(joint.rot_keys):
            out.fields.append(Field(f"joint {j} key time", pos + 93, "<f4", "float"))
        out.blocks.append((f"joint {j}", pos, pos + size))
        pos += size
    pos = _ms3d_optional_layout(model, pos, out)
    out.walked = pos
    if pos < len(data):
        out.blocks.append(("trailing", pos, len(data)))
    return out.finish(len(data))


def _ms3d_optional_layout(model: ms3d.Ms3dModel, pos: int, out: Layout) -> int:
    if model.comments is not None:
        start = pos
        out.fields.append(Field("comments subversion", pos, "<i4", "type"))
        pos += 4
        for kind in ("group", "material", "joint"):
            comments = getattr(model.comments, kind)
            out.fields.append(Field(f"{kind} comment count", pos, "<i4", "count"))
            pos += 4
            for i, comment in enumerate(comments):
                out.fields += [Field(f"{kind} comment {i} index", pos, "<i4", "index"),
                               Field(f"{kind} comment {i} length", pos + 4, "<i4", "size")]
                pos += 8 + len(comment.text_raw)
        out.fields.append(Field("has_model_comment", pos, "<i4", "type"))
        pos += 4
        if model.comments.model_raw is not None:
            out.fields.append(Field("model comment length", pos, "<i4", "size"))
            pos += 4 + len(model.comments.model_raw)
        out.blocks.append(("comments", start, pos))
    if model.vertex_extras is not None:
        size = ms3d.VERTEX_EXTRA[model.vertex_extras.subversion].itemsize * model.num_vertices
        out.fields.append(Field("vertex extras subversion", pos, "<i4", "type"))
        if model.num_vertices:
            out.fields.append(Field("vertex extra 0 bone", pos + 4, "i1", "index"))
        out.blocks.append(("vertex extras", pos, pos + 4 + size))
        pos += 4 + size
    if model.joint_extras is not None:
        size = 12 * len(model.joints)
        out.fields.append(Field("joint extras subversion", pos, "<i4", "type"))
        out.blocks.append(("joint extras", pos, pos + 4 + size))
        pos += 4 + size
    if model.model_extras is not None:
        out.fields += [Field("model extras subversion", pos, "<i4", "type"),
                       Field("transparency_mode", pos + 8, "<i4", "type")]
        out.blocks.append(("model extras", pos, pos + 16))
        pos += 16
    return pos


# ---------------------------------------------------------------------------------------------
# seeds

@lru_cache(maxsize=None)
def seeds(fmt: str) -> tuple[Seed, ...]:
    """The corpus files of ``fmt`` with their layouts; generated models when the corpus is absent."""
    files = sorted(CORPUS.glob(f"{fmt}/*/*.{fmt}")) if CORPUS.is_dir() else []
    found = [(f"{f.parent.name}/{f.name}", f.read_bytes()) for f in files]
    if not found:
        rng = random.Random(f"synthetic seeds/{fmt}")
        found = [(f"synthetic{k}", _serialized_model(fmt, rng)) for k in range(4)]
        if fmt == "md2":
            from md2_synthetic import grid_model
            found.append(("synthetic-grid", md2.serialize_md2(grid_model())))
    if fmt == "mdl":           # the corpus holds IDPO only: MD16 and RAPO seeds are always generated
        for variant in ("MD16", "RAPO"):
            rng = random.Random(f"synthetic seeds/mdl/{variant}")
            found += [(f"synthetic-{variant.lower()}{k}", _serialized_model(fmt, rng, variant=variant))
                      for k in range(2)]
    return tuple(Seed(name, data, layout(fmt, data)) for name, data in found)


# ---------------------------------------------------------------------------------------------
# structure-aware model builders

_NAME_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-. /\\:*?\"<>|\xe9\xff\x7f"


def _text(rng: random.Random, longest: int, tame: bool = False) -> str:
    """Random Latin-1 text; unless ``tame``, sometimes empty or a path that climbs or is absolute."""
    kind = rng.random()
    if tame:
        return "".join(rng.choice(_NAME_CHARS[:64]) for _ in range(rng.randint(1, longest)))
    if kind < 0.1:
        return ""
    if kind < 0.2:
        return rng.choice(["..", "../../etc/passwd", "/abs/skin.pcx", "C:\\skin.pcx", "a\\b\\c.pcx", "."])
    return "".join(rng.choice(_NAME_CHARS) for _ in range(rng.randint(1, longest)))


def _frame_names(rng: random.Random, count: int, tame: bool = False) -> list[str]:
    stems = ["stand", "run", "attack", "pain", "death", "", "x"]
    names = []
    for i in range(count):
        if rng.random() < 0.7:
            names.append(f"{rng.choice(stems)}{i % 20 + 1:02d}"[:15])
        else:
            names.append(_text(rng, 15, tame))
    return names


def _floats(nrng: np.random.Generator, shape, rng: random.Random, tame: bool = False) -> np.ndarray:
    scale = rng.choice([1.0, 1e-3, 100.0, 1e6, 1e30]) if not tame else 1.0
    return (nrng.standard_normal(shape) * scale).astype(np.float32)


def _random_md2(rng: random.Random, tame: bool = False) -> md2.Md2Model:
    nrng = np.random.default_rng(rng.getrandbits(64))
    nverts = rng.choice([1, 2, 3, rng.randint(1, 40), rng.randint(40, 300)])
    ntris = rng.randint(0, min(2 * nverts + 3, 200))
    nframes = rng.randint(1, 12)
    nst = rng.randint(1, 30)
    st = nrng.integers(-40, 600, (nst, 2)).astype(np.int16)
    tri_xyz = nrng.integers(0, nverts, (ntris, 3)).astype(np.uint16)
    tri_st = nrng.integers(0, nst, (ntris, 3)).astype(np.uint16)
    width, height = rng.choice([(64, 32), (rng.randint(1, 512), rng.randint(1, 512)), (1, 1)])
    model = md2.Md2Model(
        skin_width=width, skin_height=height,
        skins=[_text(rng, 63, tame) for _ in range(rng.choice([0, 1, 1, 2, 4]))],
        st=st, tri_xyz=tri_xyz, tri_st=tri_st, frame_names=_frame_names(rng, nframes, tame),
        frame_scale=np.abs(_floats(nrng, (nframes, 3), rng, tame)),
        frame_translate=_floats(nrng, (nframes, 3), rng, tame),
        frame_verts=nrng.integers(0, 256, (nframes, nverts, 3)).astype(np.uint8),
        frame_normals=nrng.integers(0, rng.choice([162, 256]), (nframes, nverts)).astype(np.uint8))
    if tame or rng.random() < 0.7:
        model.glcmds = build_glcmds(tri_xyz, tri_st, st, width, height)
    elif rng.random() < 0.5:
        model.glcmds = np.append(nrng.integers(-2**31, 2**31, rng.randint(0, 40)), 0).astype("<i4")
    return model


def _random_mdl(rng: random.Random, tame: bool = False, variant: str | None = None) -> mdl.MdlModel:
    """A random MDL; ``variant`` None picks IDPO, MD16 or RAPO (60/20/20)."""
    if variant is None:
        variant = rng.choice(["IDPO"] * 3 + ["MD16", "RAPO"])
    nrng = np.random.default_rng(rng.getrandbits(64))
    nverts = rng.choice([1, 3, rng.randint(1, 60)])
    ntris = rng.choice([0, 1, rng.randint(0, 80)])
    width = rng.choice([4, 8, 16, rng.randint(1, 24)])
    height = rng.choice([4, 8, rng.randint(1, 24)])
    skins = []
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        if rng.random() < 0.6:
            skins.append(mdl.MdlSkin(None, nrng.integers(0, 256, (1, height, width)).astype(np.uint8)))
        else:
            n = rng.randint(1, 3)
            skins.append(mdl.MdlSkin(np.cumsum(nrng.random(n)).astype(np.float32) - rng.choice([0, 0.5]),
                                     nrng.integers(0, 256, (n, height, width)).astype(np.uint8)))
    frames, poses = [], 0
    for _ in range(rng.randint(1, 6)):
        n = 1 if rng.random() < 0.6 else rng.randint(1, 4)
        grouped = n > 1 or rng.random() < 0.2
        frames.append(mdl.MdlFrameSlot(
            poses, n, np.cumsum(nrng.random(n)).astype(np.float32) if grouped else None,
            nrng.integers(0, 256, 4).astype(np.uint8), nrng.integers(0, 256, 4).astype(np.uint8)))
        poses += n
    nst = rng.choice([nverts, 1, rng.randint(1, 90)]) if variant == "RAPO" else nverts
    model = mdl.MdlModel(
        scale=np.abs(_floats(nrng, 3, rng, tame)), translate=_floats(nrng, 3, rng, tame),
        bounding_radius=float(abs(nrng.standard_normal()) * 100), eye_position=_floats(nrng, 3, rng, tame),
        skin_width=width, skin_height=height, synctype=rng.choice([0, 1, rng.randint(-5, 5)]),
        flags=rng.choice([0, 1, 8, rng.randint(-2**31, 2**31 - 1)]), size=float(nrng.random() * 10),
        skins=skins,
        onseam=nrng.choice(np.array([0, 0x20, 1, -1], np.int32), nst).astype(np.int32),
        s=nrng.integers(-width, 2 * width + 1, nst).astype(np.int32),
        t=nrng.integers(-height, 2 * height + 1, nst).astype(np.int32),
        facesfront=nrng.choice(np.array([0, 1, 2], np.int32), ntris).astype(np.int32),
        triangles=nrng.integers(0, nverts, (ntris, 3)).astype(np.int32),
        pose_names=_frame_names(rng, poses, tame),
        pose_verts=nrng.integers(0, 256, (poses, nverts, 3)).astype(np.uint8),
        pose_normals=nrng.integers(0, rng.choice([162, 256]), (poses, nverts)).astype(np.uint8),
        pose_bbox_min=nrng.integers(0, 256, (poses, 4)).astype(np.uint8),
        pose_bbox_max=nrng.integers(0, 256, (poses, 4)).astype(np.uint8), frames=frames, variant=variant)
    if variant == "MD16":
        model.pose_low = nrng.integers(0, 256, (poses, nverts, 4)).astype(np.uint8)
    if variant == "RAPO":
        model.st_triangles = nrng.integers(0, nst, (ntris, 3)).astype(np.int32)
    return model


def _raw(rng: random.Random, size: int, tame: bool = False) -> bytes:
    text = _text(rng, size - 1, tame).encode("latin-1")[:size - 1]
    junk = bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 4))) if rng.random() < 0.3 else b""
    return (text + b"\0" + junk)[:size].ljust(size, b"\0")


def _keys(nrng: np.random.Generator, rng: random.Random, tame: bool) -> np.ndarray:
    keys = _floats(nrng, (rng.randint(0, 4), 4), rng, tame)
    if tame:
        keys[:, 0] = np.sort(np.abs(keys[:, 0]))
    return keys


def _random_ms3d(rng: random.Random, tame: bool = False) -> ms3d.Ms3dModel:
    nrng = np.random.default_rng(rng.getrandbits(64))
    nverts = rng.choice([0, 1, 3, rng.randint(1, 60)])
    ntris = 0 if nverts == 0 else rng.choice([0, 1, rng.randint(0, 80)])
    njoints = rng.choice([0, 0, 1, rng.randint(1, 5)])
    nmaterials = rng.choice([0, 1, rng.randint(0, 3)])
    groups = []
    if ntris and (tame or rng.random() < 0.8):
        owner = nrng.integers(0, rng.randint(1, 4), ntris)
        for g in range(int(owner.max()) + 1):
            groups.append(ms3d.Ms3dGroup(rng.choice([0, 1, 2, 255]), _raw(rng, 32, tame),
                                         np.flatnonzero(owner == g).astype(np.uint16),
                                         rng.randint(-1, nmaterials - 1)))
        tri_group = owner.astype(np.uint8)
    else:
        tri_group = nrng.integers(0, 256, ntris).astype(np.uint8)
    materials = [ms3d.Ms3dMaterial(
        _raw(rng, 32, tame), *(nrng.random(4).astype(np.float32) for _ in range(4)),
        np.float32(nrng.random() * 128), np.float32(nrng.random()), rng.randint(-128, 127),
        _raw(rng, 128, tame), _raw(rng, 128, tame)) for _ in range(nmaterials)]
    names = [_raw(rng, 32, tame) for _ in range(njoints)]
    joints = [ms3d.Ms3dJoint(
        rng.choice([0, 8]), names[j], names[rng.randrange(j)] if j and rng.random() < 0.8 else _raw(rng, 32, tame),
        _floats(nrng, 3, rng, tame), _floats(nrng, 3, rng, tame),
        _keys(nrng, rng, tame), _keys(nrng, rng, tame))
        for j in range(njoints)]
    model = ms3d.Ms3dModel(
        vert_flags=nrng.integers(0, 256, nverts).astype(np.uint8), vert_xyz=_floats(nrng, (nverts, 3), rng, tame),
        vert_bone=nrng.integers(-1, njoints if tame else max(njoints, 1) + rng.choice([0, 3]),
                                nverts).astype(np.int8),
        vert_refcount=nrng.integers(0, 256, nverts).astype(np.uint8),
        tri_flags=nrng.integers(0, 65536, ntris).astype(np.uint16),
        tri_vertices=nrng.integers(0, max(nverts, 1), (ntris, 3)).astype(np.uint16),
        tri_normals=nrng.standard_normal((ntris, 3, 3)).astype(np.float32),
        tri_s=nrng.random((ntris, 3)).astype(np.float32), tri_t=nrng.random((ntris, 3)).astype(np.float32),
        tri_smoothing=nrng.integers(0, 256, ntris).astype(np.uint8), tri_group=tri_group,
        groups=groups, materials=materials, animation_fps=np.float32(rng.choice([0, 24, 30])),
        current_time=np.float32(nrng.random()), total_frames=rng.randint(0, 200), joints=joints,
        version=rng.choice([3, 4, 4]))
    blocks = rng.randint(0, 4)
    if blocks >= 1:
        def comments(limit: int) -> list[ms3d.Ms3dComment]:
            if tame:      # at most one comment per existing item (others are legal but unusual)
                return [ms3d.Ms3dComment(i, _text(rng, 40, tame).encode("latin-1"))
                        for i in sorted(rng.sample(range(limit), min(limit, rng.randint(0, 3))))]
            return [ms3d.Ms3dComment(rng.randint(-1, limit), _text(rng, 40).encode("latin-1"))
                    for _ in range(rng.randint(0, 3))]
        model_raw = _text(rng, 60, tame).encode("latin-1") if rng.random() < 0.5 else None
        model.comments = ms3d.Ms3dComments(comments(len(groups)), comments(nmaterials), comments(njoints),
                                           model_raw=model_raw)
    if blocks >= 2:
        sub = rng.randint(1, 3)
        model.vertex_extras = ms3d.Ms3dVertexExtras(
            nrng.integers(-1, njoints if tame else max(njoints, 1), (nverts, 3)).astype(np.int8),
            nrng.integers(0, 101, (nverts, 3)).astype(np.uint8),
            nrng.integers(0, 2**32, (nverts, sub - 1)).astype(np.uint32), sub)
    if blocks >= 3:
        model.joint_extras = ms3d.Ms3dJointExtras(nrng.random((njoints, 3)).astype(np.float32))
    if blocks >= 4:
        model.model_extras = ms3d.Ms3dModelExtras(np.float32(nrng.random()), rng.randint(0, 3),
                                                  np.float32(nrng.random()))
    if not tame and rng.random() < 0.15:
        model.trailing = struct.pack("<i", 99) + bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 20)))
    return model


_BUILDERS = {"md2": _random_md2, "mdl": _random_mdl, "ms3d": _random_ms3d}


def _serialized_model(fmt: str, rng: random.Random, tame: bool = False, **choices) -> bytes:
    """A random model of ``fmt`` as bytes; retries the rare model its serializer refuses.

    ``tame`` keeps floats near 1 (no 1e30 scales or key times) and adds no trailing junk."""
    for _ in range(20):
        try:
            data = SERIALIZERS[fmt](_BUILDERS[fmt](rng, tame, **choices))
        except FormatError:
            continue
        if fmt == "mdl" and not tame and rng.random() < 0.2:
            data += b"QMEX" + bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 16)))
        return data
    raise RuntimeError(f"no {fmt} model serialized in 20 attempts")


# ---------------------------------------------------------------------------------------------
# mutations: each takes (rng, seed) and returns (detail, bytes)

def _pack(kind: str, value) -> bytes:
    if kind == "<f4":
        return struct.pack("<f", value)
    dtype = np.dtype(kind)
    bits = 8 * dtype.itemsize
    return (int(value) & ((1 << bits) - 1)).to_bytes(dtype.itemsize, "little")


def _read(data: bytes, f: Field):
    return np.frombuffer(data, f.kind, count=1, offset=f.offset)[0].item()


def _patched(data: bytes, offset: int, raw: bytes) -> bytes:
    out = bytearray(data)
    out[offset:offset + len(raw)] = raw
    return bytes(out)


def with_field(data: bytes, f: Field, value) -> bytes:
    """``data`` with field ``f`` set to ``value`` (integers wrap to the field's width)."""
    return _patched(data, f.offset, _pack(f.kind, value))


def _near_field(rng: random.Random, seed: Seed) -> int:
    if seed.layout.fields and rng.random() < 0.7:
        f = rng.choice(seed.layout.fields)
        return f.offset + rng.randrange(np.dtype(f.kind).itemsize)
    return rng.randrange(min(len(seed.data), 256))


def mutate_bitflip(rng: random.Random, seed: Seed) -> tuple[str, bytes]:
    data = bytearray(seed.data)
    flips = []
    for _ in range(rng.randint(1, 8)):
        pos = _near_field(rng, seed) if rng.random() < 0.5 else rng.randrange(len(data))
        bit = rng.randrange(8)
        data[pos] ^= 1 << bit
        flips.append(f"{pos}.{bit}")
    return "bits@" + ",".join(flips), bytes(data)


def mutate_overwrite(rng: random.Random, seed: Seed) -> tuple[str, bytes]:
    data = seed.data
    if seed.layout.fields and rng.random() < 0.6:
        f = rng.choice(seed.layout.fields)
        pool = {"<f4": FLOAT_SPECIAL, "<u2": UINT16_BOUNDARY, "u1": UINT8_BOUNDARY,
                "i1": UINT8_BOUNDARY}.get(f.kind, INT32_BOUNDARY)
        value = rng.choice(pool)
        return f"{f.name}={value!r}", with_field(data, f, value)
    pos = rng.randrange(0, max(len(data) - 3, 1)) & ~3
    if rng.random() < 0.3:
        value = rng.choice(FLOAT_SPECIAL)
        return f"f32@{pos}={value!r}", _patched(data, pos, struct.pack("<f", value))[:len(data)]
    value = rng.choice(INT32_BOUNDARY)
    return f"i32@{pos}=0x{value:X}", _patched(data, pos, _pack("<i4", value))[:len(data)]


def _inflated_values(f: Field, current: int, size: int) -> list[int]:
    if f.kind == "<u2":
        return [0, 1, 0x7FFF, 0xFFFF, (current + 1) & 0xFFFF, max(current - 1, 0), current * 2 & 0xFFFF]
    if f.kind in ("u1", "i1"):
        return [0, 0x7F, 0x80, 0xFF, (current + 1) & 0xFF]
    return [-1, -2**31, 2**31 - 1, 2**30, 0x10000, 0xFFFF, 0, current + 1, current - 1,
            2 * current + 1, size, size + 1, (size // 4) + 1]


def mutate_inflate(rng: random.Random, seed: Seed) -> tuple[str, bytes]:
    fields = [f for f in seed.layout.fields if f.role in ("count", "size", "offset")]
    if not fields:
        return mutate_overwrite(rng, seed)
    f = rng.choice(fields)
    value = rng.choice(_inflated_values(f, int(_read(seed.data, f)), len(seed.data)))
    return f"{f.name}={value}", with_field(seed.data, f, value)


class _Truncations:
    """Every block boundary of every seed once (seeded order), then cuts next to boundaries."""

    def __init__(self, rng: random.Random, pool: tuple[Seed, ...]) -> None:
        self.pool = pool
        self.todo = [(i, b) for i, s in enumerate(pool) for b in s.layout.boundaries if b < len(s.data)]
        rng.shuffle(self.todo)

    def __call__(self, rng: random.Random, seed: Seed) -> tuple[str, bytes, Seed]:
        if self.todo:
            i, cut = self.todo.pop()
            seed = self.pool[i]
            return f"cut@{cut}", seed.data[:cut], seed
        if seed.layout.boundaries and rng.random() < 0.7:
            cut = rng.choice(seed.layout.boundaries) + rng.choice([-4, -2, -1, 1, 2, 3])
        else:
            cut = rng.randrange(len(seed.data))
        cut = min(max(cut, 0), max(len(seed.data) - 1, 0))
        return f"cut@{cut}", seed.data[:cut], seed


def mutate_truncate(rng: random.Random, seed: Seed) -> tuple[str, bytes]:
    cut = rng.choice([b for b in seed.layout.boundaries if b < len(seed.data)] or [0])
    return f"cut@{cut}", seed.data[:cut]


def mutate_blocks(rng: random.Random, seed: Seed) -> tuple[str, bytes]:
    blocks = seed.layout.blocks
    if not blocks:
        return mutate_truncate(rng, seed)
    data = seed.data
    k = rng.randrange(len(blocks))
    name, start, end = blocks[k]
    op = rng.choice(["duplicate", "remove", "swap"])
    if op == "duplicate":
        return f"duplicate {name}", data[:end] + data[start:end] + data[end:]
    if op == "remove":
        return f"remove {name}", data[:start] + data[end:]
    following = [b for b in blocks if b[1] >= end]
    if not following:
        return f"remove {name}", data[:start] + data[end:]
    other, o_start, o_end = following[0]
    return (f"swap {name} {other}",
            data[:start] + data[o_start:o_end] + data[end:o_start] + data[start:end] + data[o_end:])


def _md2_offsets(rng: random.Random, seed: Seed) -> tuple[str, bytes]:
    data = seed.data
    if len(data) < md2.HEADER.itemsize or data[:4] != md2.IDENT:
        return mutate_overwrite(rng, seed)
    names = ["ofs_skins", "ofs_st", "ofs_tris", "ofs_frames", "ofs_glcmds", "ofs_end"]
    at = {n: md2.HEADER.fields[n][1] for n in names}
    value = {n: struct.unpack_from("<i", data, at[n])[0] for n in names}
    op = rng.random()
    if op < 0.4:
        a, b = rng.sample(names, 2)
        out = _patched(_patched(data, at[a], struct.pack("<i", value[b])), at[b], struct.pack("<i", value[a]))
        return f"swap {a} {b}", out
    a = rng.choice(names[:-1])
    starts = [s for _, s, _ in seed.layout.blocks] or [md2.HEADER.itemsize]
    ends = [e for _, _, e in seed.layout.blocks] or [len(data)]
    target = rng.choice([
        rng.choice(starts), rng.choice(starts) + rng.choice([1, 2, 4, 40]),
        (rng.choice(starts) + rng.choice(ends)) // 2, 0, 4, md2.HEADER.itemsize - 4, len(data), len(data) - 1,
        value["ofs_end"], -1, -md2.HEADER.itemsize])
    return f"{a}={target}", _patched(data, at[a], struct.pack("<i", target))


def _retype(rng: random.Random, seed: Seed) -> tuple[str, bytes]:
    fields = [f for f in seed.layout.fields if f.role == "type"]
    if not fields:
        return mutate_overwrite(rng, seed)
    f = rng.choice(fields)
    current = int(_read(seed.data, f))
    value = rng.choice([0, 1, 2, 3, -1, current ^ 1, 2**31 - 1, 5, 4])
    return f"{f.name}={value}", with_field(seed.data, f, value)


def _ms3d_blocks_offsets(rng: random.Random, seed: Seed) -> tuple[str, bytes]:
    optional = [b for b in seed.layout.blocks
                if b[0] in ("comments", "vertex extras", "joint extras", "model extras")]
    if optional and rng.random() < 0.4:
        name, start, end = rng.choice(optional)
        op = rng.choice(["repeat", "drop", "move to end"])
        data = seed.data
        if op == "repeat":
            return f"repeat {name}", data[:end] + data[start:end] + data[end:]
        if op == "drop":
            return f"drop {name}", data[:start] + data[end:]
        return f"move {name} to end", data[:start] + data[end:] + data[start:end]
    return _retype(rng, seed)


def _mdl_flavour(rng: random.Random, seed: Seed) -> tuple[str, bytes]:
    """MDL: the ident and version of another flavour (or only one of them), else a type field retyped."""
    if rng.random() < 0.35:
        ident = rng.choice([b"IDPO", b"MD16", b"RAPO"])
        version = rng.choice([6, 50, struct.unpack_from("<i", seed.data, 4)[0] if len(seed.data) >= 8 else 6])
        return f"ident={ident.decode()},version={version}", ident + struct.pack("<i", version) + seed.data[8:]
    return _retype(rng, seed)


OFFSET_MUTATIONS = {"md2": _md2_offsets, "mdl": _mdl_flavour, "ms3d": _ms3d_blocks_offsets}
CORRUPTIONS = (mutate_bitflip, mutate_overwrite, mutate_truncate, mutate_inflate, mutate_blocks)

GENERATORS = ("bitflip", "overwrite", "truncate", "inflate", "blocks", "offsets", "generated", "generated+corrupt")


def _seed_mutations(fmt: str, gen: str, rng: random.Random) -> Iterator[Case]:
    pool = seeds(fmt)
    mutate = {"bitflip": mutate_bitflip, "overwrite": mutate_overwrite, "inflate": mutate_inflate,
              "blocks": mutate_blocks, "offsets": OFFSET_MUTATIONS[fmt]}.get(gen)
    truncations = _Truncations(rng, pool) if gen == "truncate" else None
    while True:
        seed = rng.choice(pool)
        if truncations is not None:
            detail, data, seed = truncations(rng, seed)
        else:
            detail, data = mutate(rng, seed)
        yield Case(fmt, f"{fmt}/{gen}/{seed.name}/{detail}", data)


def _generated(fmt: str, gen: str, rng: random.Random) -> Iterator[Case]:
    corrupt = gen == "generated+corrupt"
    k = 0
    while True:
        data = _serialized_model(fmt, rng)
        name = f"{fmt}/{gen}/model{k}"
        k += 1
        if not corrupt:
            yield Case(fmt, name, data)
            continue
        seed = Seed(name, data, layout(fmt, data))
        mutate = rng.choice(CORRUPTIONS + (OFFSET_MUTATIONS[fmt],))
        detail, data = mutate(rng, seed)
        yield Case(fmt, f"{name}/{mutate.__name__.removeprefix('mutate_').lstrip('_')}/{detail}", data)


def generators(fmt: str, seed: int = 0) -> dict[str, Iterator[Case]]:
    """One lazy, endless, deterministic case stream per generator name (see :data:`GENERATORS`)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {FORMATS}")
    out = {}
    for gen in GENERATORS:
        rng = random.Random(f"{seed}/{fmt}/{gen}")
        out[gen] = (_generated if gen.startswith("generated") else _seed_mutations)(fmt, gen, rng)
    return out


def iter_cases(fmt: str, seed: int = 0) -> Iterator[Case]:
    """An endless fair mix: one case from each generator in turn."""
    streams = list(generators(fmt, seed).values())
    while True:
        for stream in streams:
            yield next(stream)


def cases(fmt: str, count: int, seed: int = 0) -> list[Case]:
    """The first ``count`` cases of the fair mix for ``fmt``."""
    return list(islice(iter_cases(fmt, seed), count))


# ---------------------------------------------------------------------------------------------
# PCX skins (reached by the MD2 import whenever a skin is found next to the model)

IMAGE_SUFFIXES = (".pcx", ".tga", ".png", ".jpg", ".jpeg", ".bmp")
_PCX_FIELDS = [Field(name, pcx.HEADER.fields[name][1], pcx.HEADER.fields[name][0].str, "size")
               for name in ("xmin", "ymin", "xmax", "ymax", "bytes_per_line")] + \
              [Field(name, pcx.HEADER.fields[name][1], "u1", "type")
               for name in ("manufacturer", "version", "encoding", "bits_per_pixel", "planes")]


def skin_files(fmt: str) -> list[Path]:
    """The corpus images stored next to the ``fmt`` models (empty without the corpus)."""
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.glob(f"{fmt}/*/*") if p.suffix.lower() in IMAGE_SUFFIXES)


@lru_cache(maxsize=None)
def pcx_seeds() -> tuple[Seed, ...]:
    rng = np.random.default_rng(3)
    found = [(f"{p.parent.name}/{p.name}", p.read_bytes())
             for p in skin_files("md2") if p.suffix.lower() == ".pcx"]
    found.append(("synthetic", pcx.encode_pcx(rng.integers(0, 4, (17, 9)).astype(np.uint8),
                                              rng.integers(0, 256, (256, 3)).astype(np.uint8))))
    out = []
    for name, data in found:
        ends = [128, len(data) - 769, len(data) - 768, len(data) - 1]
        out.append(Seed(name, data, Layout(boundaries=ends, fields=list(_PCX_FIELDS)).finish(len(data))))
    return tuple(out)


def pcx_cases(count: int, seed: int = 0) -> Iterator[Case]:
    """``count`` mutated PCX files: bit flips, header fields at boundary values, truncations."""
    rng = random.Random(f"{seed}/pcx")
    pool = pcx_seeds()
    mutations = (mutate_bitflip, mutate_overwrite, mutate_inflate, mutate_truncate)
    for k in range(count):
        seed_file = rng.choice(pool)
        mutate = mutations[k % len(mutations)]
        detail, data = mutate(rng, seed_file)
        yield Case("pcx", f"pcx/{mutate.__name__.removeprefix('mutate_')}/{seed_file.name}/{detail}", data)


def small_valid_files(fmt: str, count: int, seed: int = 0) -> list[bytes]:
    """``count`` small files the codec accepts, with ordinary values: random models built with
    ``tame`` numbers (MD2 alternates them with waving grids)."""
    rng = random.Random(f"{seed}/{fmt}/small valid files")
    out = []
    for i in range(count):
        if fmt == "md2" and i % 2 == 0:
            from md2_synthetic import grid_model
            out.append(md2.serialize_md2(grid_model(nx=3 + i % 3, ny=2 + i % 4, frames=1 + i % 6, seed=i)))
        else:
            out.append(_serialized_model(fmt, rng, tame=True))
    return out


def hex_snippet(data: bytes, around: int | None = None, width: int = 32) -> str:
    """A short hex view of ``data`` (the start, or ``width`` bytes around offset ``around``)."""
    start = 0 if around is None else max(around - width // 2, 0)
    chunk = data[start:start + width]
    return f"{len(data)} bytes, [{start}:{start + len(chunk)}] {chunk.hex(' ')}"


# ---------------------------------------------------------------------------------------------
# codec-level check

MAX_PARSE_SECONDS = 2.0
MEMORY_FACTOR, MEMORY_SLACK = 20, 1 << 20      # a parse may allocate at most 20x the file + 1 MB
CODEC_FAILURES = ("crash", "serialize-crash", "unreadable-output", "non-finite-positions", "slow", "memory")


@dataclass
class CodecResult:
    """``outcome`` is ``parsed`` or ``refused`` (FormatError), or one of :data:`CODEC_FAILURES`."""
    outcome: str
    detail: str = ""
    seconds: float = 0.0
    peak: int = 0


def describe(exc: BaseException) -> str:
    """``Type: message (at file.py:line function)`` for the innermost frame of ``exc``."""
    import traceback
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno} {frames[-1].name})" if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"


def run_codec_case(case: Case) -> CodecResult:
    """Parse ``case`` under ``tracemalloc``; serialize and parse again whatever parsed.

    A parse may raise only FormatError, take at most :data:`MAX_PARSE_SECONDS` and allocate at
    most ``MEMORY_FACTOR * size + MEMORY_SLACK`` bytes at its peak; a parsed model's decoded
    positions must be finite; serializing it may raise only FormatError, and what it writes must parse.
    """
    import time
    import tracemalloc
    parse, serialize = PARSERS[case.format], SERIALIZERS[case.format]
    if not tracemalloc.is_tracing():
        tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    started = time.perf_counter()
    model = None
    try:
        model = parse(case.data)
    except FormatError:
        pass
    except Exception as exc:  # noqa: BLE001 - anything but FormatError is what the fuzzer looks for
        return CodecResult("crash", describe(exc), time.perf_counter() - started)
    seconds = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1] - base
    outcome = "refused" if model is None else "parsed"
    if model is not None:
        with np.errstate(over="ignore", invalid="ignore"):
            positions = model.vert_xyz if case.format == "ms3d" else model.positions()
        if not np.isfinite(positions).all():
            return CodecResult("non-finite-positions", "the model parses but decodes to inf or NaN", seconds, peak)
        try:
            written = serialize(model)
        except FormatError:
            written = None
        except Exception as exc:  # noqa: BLE001
            return CodecResult("serialize-crash", describe(exc), seconds, peak)
        if written is not None:
            try:
                parse(written)
            except Exception as exc:  # noqa: BLE001 - the writer wrote a file the reader refuses
                return CodecResult("unreadable-output", describe(exc), seconds, peak)
    if seconds > MAX_PARSE_SECONDS:
        return CodecResult("slow", f"parse took {seconds:.2f} s", seconds, peak)
    if peak > MEMORY_FACTOR * len(case.data) + MEMORY_SLACK:
        return CodecResult("memory", f"parse allocated {peak} bytes for {len(case.data)}", seconds, peak)
    return CodecResult(outcome, "", seconds, peak)


# ---------------------------------------------------------------------------------------------
# Blender-level checks (``bpy`` is passed in: this module stays importable without Blender)

def import_operator(bpy, fmt: str):
    """``bpy.ops.import_scene.<fmt>`` if it is registered, else None."""
    ops = bpy.ops.import_scene
    if not hasattr(ops, fmt):
        return None
    operator = getattr(ops, fmt)
    try:
        operator.idname()
        operator.get_rna_type()       # idname() alone answers for any name; this one needs a registered class
    except (KeyError, AttributeError, RuntimeError):
        return None
    return operator


def data_counts(bpy) -> dict[str, int]:
    """The length of every ``bpy.data`` collection, plus the scene's timeline markers."""
    counts = {"markers": len(bpy.context.scene.timeline_markers)}
    for name in dir(bpy.data):
        collection = getattr(bpy.data, name, None)
        if isinstance(collection, bpy.types.bpy_prop_collection):
            counts[name] = len(collection)
    return counts


def purge_orphans(bpy) -> None:
    if hasattr(bpy.data, "orphans_purge"):
        bpy.data.orphans_purge(do_local_ids=True, do_linked_ids=True, do_recursive=True)


def remove_new_objects(bpy, object_uids: set[int], marker_pointers: set[int]) -> int:
    """Remove objects and markers not in the given sets, then purge orphans; returns objects removed."""
    scene = bpy.context.scene
    added = [o for o in bpy.data.objects if o.session_uid not in object_uids]
    for obj in added:
        bpy.data.objects.remove(obj, do_unlink=True)
    for marker in [m for m in scene.timeline_markers if m.as_pointer() not in marker_pointers]:
        scene.timeline_markers.remove(marker)
    purge_orphans(bpy)
    return len(added)


def _scene_timing(bpy) -> tuple:
    scene = bpy.context.scene
    return scene.frame_start, scene.frame_end, scene.render.fps, scene.render.fps_base


def _count_diff(before: dict[str, int], after: dict[str, int]) -> str:
    return ", ".join(f"{k} {before.get(k, 0)} -> {after.get(k, 0)}"
                     for k in sorted(set(before) | set(after)) if before.get(k, 0) != after.get(k, 0))


def import_outcome(bpy, operator, path: Path) -> tuple[str, str]:
    """Import ``path`` through ``operator`` and judge it: ``(outcome, detail)``.

    outcome is ``finished`` (and deleting what it made and purging orphans restores every
    ``bpy.data`` count), ``error`` (an ERROR report, with ``bpy.data``, markers and scene timing as
    before), or a failure: ``crash`` (a Python traceback, an "internal error" report or an
    unexpected return value), ``leak``
    (a failed import left data or changed the scene) or ``orphans`` (data left after deleting a
    finished import's objects).
    """
    scene = bpy.context.scene
    before = data_counts(bpy)
    timing = _scene_timing(bpy)
    objects = {o.session_uid for o in bpy.data.objects}
    markers = {m.as_pointer() for m in scene.timeline_markers}
    try:
        result = operator(filepath=str(path))
    except RuntimeError as exc:
        text = str(exc)
        if "Traceback" in text or "internal error" in text:
            return "crash", text
        after = data_counts(bpy)
        if after != before:
            return "leak", f"{_count_diff(before, after)} after: {text}"
        if _scene_timing(bpy) != timing:
            return "leak", f"scene timing {timing} -> {_scene_timing(bpy)} after: {text}"
        return "error", text
    if result != {"FINISHED"}:
        return "crash", f"the operator returned {result} without an error report"
    created = remove_new_objects(bpy, objects, markers)
    after = data_counts(bpy)
    if after != before:
        return "orphans", f"{_count_diff(before, after)} after removing {created} object(s)"
    return "finished", f"{created} object(s)"


def rss_bytes() -> int:
    """Resident set size of this process (Linux ``/proc/self/statm``)."""
    import os
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
