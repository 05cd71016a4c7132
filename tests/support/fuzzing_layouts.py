"""File layouts for the fuzz cases: where each block of an MD2, MDL or MS3D starts and ends and where its
typed fields sit (:func:`layout`); used by the mutations in ``tests/support/fuzzing.py``."""
from __future__ import annotations

import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]
if str(CHECKOUT) not in sys.path:
    sys.path.insert(0, str(CHECKOUT))

from dataclasses import dataclass, field

import numpy as np

from formats.errors import FormatError  # noqa: E402
from formats.md2 import codec as md2  # noqa: E402
from formats.mdl import codec as mdl  # noqa: E402
from formats.ms3d import records as ms3d  # noqa: E402
from formats.ms3d.codec import parse_ms3d  # noqa: E402


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

    def finish(self, size: int) -> Layout:
        points = {0, size}
        for _, start, end in self.blocks:
            points.update((start, end))
        points.update(self.boundaries)
        self.boundaries = sorted(p for p in points if 0 <= p <= size)
        self.fields = [f for f in self.fields if f.offset >= 0 and f.offset + np.dtype(f.kind).itemsize <= size]
        self.blocks = [(n, s, e) for n, s, e in self.blocks if 0 <= s < e <= size]
        return self


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
    if count > 0 and start >= 0:
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
        model = parse_ms3d(data)
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
