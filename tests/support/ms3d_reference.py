"""An independent MS3D decoder for the tests, written from docs/dev/format-facts.md ("MS3D") with ``struct`` only.

It shares no code with ``formats.ms3d.codec`` so the tests compare two separate readings of each file. It
trusts its input (valid files only) and also records where the count fields sit, so the corruption
tests can patch them without relying on the codec under test.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field


@dataclass
class RefMs3d:
    version: int
    vertices: list = field(default_factory=list)     # (flags, (x, y, z), bone, refcount)
    triangles: list = field(default_factory=list)    # (flags, (v0, v1, v2), (normal x 3), (s x 3), (t x 3),
                                                     #  smoothing, group)
    groups: list = field(default_factory=list)       # (flags, name[32], [triangle indices], material)
    materials: list = field(default_factory=list)    # dicts keyed by the struct member names
    fps: float = 0.0
    current_time: float = 0.0
    total_frames: int = 0
    joints: list = field(default_factory=list)       # dicts keyed flags, name, parent, rotation, position,
                                                     # rot_keys, pos_keys
    blocks: list = field(default_factory=list)       # [(name, subversion)] in file order
    group_comments: list = field(default_factory=list)     # (index, text)
    material_comments: list = field(default_factory=list)
    joint_comments: list = field(default_factory=list)
    model_comment: bytes | None = None
    vertex_extras: list = field(default_factory=list)      # (bone_ids, weights, extras)
    joint_colors: list = field(default_factory=list)
    model_extras: tuple | None = None
    rest: bytes = b""                                       # bytes not decoded (unknown subversion onwards)
    offsets: dict = field(default_factory=dict)             # field name -> byte offset


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def take(self, fmt: str):
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values

    def text(self, n: int) -> bytes:
        if self.at + n > len(self.data):
            raise struct.error("text runs past the end")
        self.at += n
        return self.data[self.at - n:self.at]


def decode(data: bytes) -> RefMs3d:
    r = _Reader(data)
    ident, version = r.take("10si")
    assert ident == b"MS3D000000" and version in (3, 4)
    ref = RefMs3d(version)
    off = ref.offsets

    off["nverts"] = r.at
    (nverts,) = r.take("H")
    off["vertices"] = r.at
    for _ in range(nverts):
        flags, x, y, z, bone, refcount = r.take("B3fbB")
        ref.vertices.append((flags, (x, y, z), bone, refcount))

    off["ntris"] = r.at
    (ntris,) = r.take("H")
    off["triangles"] = r.at
    for _ in range(ntris):
        v = r.take("H3H9f3f3fBB")
        normals = (v[4:7], v[7:10], v[10:13])
        ref.triangles.append((v[0], v[1:4], normals, v[13:16], v[16:19], v[19], v[20]))

    off["ngroups"] = r.at
    (ngroups,) = r.take("H")
    for g in range(ngroups):
        off[f"group{g}"] = r.at
        flags, name, n = r.take("B32sH")
        off[f"group{g}.tris"] = r.at
        tris = list(r.take(f"{n}H"))
        off[f"group{g}.material"] = r.at
        (material,) = r.take("b")
        ref.groups.append((flags, name, tris, material))

    off["nmaterials"] = r.at
    (nmaterials,) = r.take("H")
    for _ in range(nmaterials):
        v = r.take("32s4f4f4f4fffb128s128s")
        ref.materials.append(dict(name=v[0], ambient=v[1:5], diffuse=v[5:9], specular=v[9:13],
                                  emissive=v[13:17], shininess=v[17], transparency=v[18], mode=v[19],
                                  texture=v[20], alphamap=v[21]))

    ref.fps, ref.current_time, ref.total_frames = r.take("ffi")
    off["njoints"] = r.at
    (njoints,) = r.take("H")
    for j in range(njoints):
        off[f"joint{j}"] = r.at
        flags, name, parent, rx, ry, rz, px, py, pz, nrot, npos = r.take("B32s32s3f3fHH")
        rot_keys = [r.take("4f") for _ in range(nrot)]
        pos_keys = [r.take("4f") for _ in range(npos)]
        ref.joints.append(dict(flags=flags, name=name, parent=parent, rotation=(rx, ry, rz),
                               position=(px, py, pz), rot_keys=rot_keys, pos_keys=pos_keys))
    off["required_end"] = r.at

    for name, known in (("comments", {1}), ("vertex extras", {1, 2, 3}), ("joint extras", {1}),
                        ("model extras", {1})):
        if r.at == len(data):
            break
        off[f"{name}.subversion"] = r.at
        (sub,) = r.take("i")
        if sub not in known:
            r.at -= 4
            break
        ref.blocks.append((name, sub))
        if name == "comments":
            for kind, target in (("group", ref.group_comments), ("material", ref.material_comments),
                                 ("joint", ref.joint_comments)):
                off[f"{kind} comment count"] = r.at
                (count,) = r.take("i")
                for i in range(count):
                    off[f"{kind} comment {i} length"] = r.at + 4
                    index, length = r.take("ii")
                    target.append((index, r.text(length)))
            off["has_model_comment"] = r.at
            (has,) = r.take("i")
            if has:
                off["model comment length"] = r.at
                (length,) = r.take("i")
                ref.model_comment = r.text(length)
        elif name == "vertex extras":
            for _ in range(nverts):
                bones = r.take("3b")
                weights = r.take("3B")
                extras = r.take(f"{sub - 1}I") if sub > 1 else ()
                ref.vertex_extras.append((bones, weights, extras))
        elif name == "joint extras":
            ref.joint_colors = [r.take("3f") for _ in range(njoints)]
        else:
            ref.model_extras = r.take("fif")
        off[f"{name}.end"] = r.at
    ref.rest = data[r.at:]
    return ref
