"""An independent IQM reader and a builder, both with struct only, following the IQM SDK's iqm.h (the
codec's tests compare against these, never against the codec itself); seeded mutations of small IQM
files for the fuzz tests (the codec's and the import operator's)."""
from __future__ import annotations

import random
import struct

from .environment import corpus_files

HEADER_NAMES = ["version", "filesize", "flags", "num_text", "ofs_text", "num_meshes", "ofs_meshes", "num_vertexarrays", "num_vertexes", "ofs_vertexarrays", "num_triangles", "ofs_triangles", "ofs_adjacency", "num_joints", "ofs_joints", "num_poses", "ofs_poses", "num_anims", "ofs_anims", "num_frames", "num_framechannels", "ofs_frames", "ofs_bounds", "num_comment", "ofs_comment", "num_extensions", "ofs_extensions"]
FORMAT_CODES = "bBhHiIefd"          # iqm.h IQM_BYTE .. IQM_DOUBLE


def header_at(name: str) -> int:
    """The byte offset of a header field: 16 magic bytes, then uint32s in iqm.h's order."""
    return 16 + 4 * HEADER_NAMES.index(name)


def reference_read(data: bytes) -> dict:
    h = dict(zip(HEADER_NAMES, struct.unpack_from("<27I", data, 16)))
    nv = h["num_vertexes"]
    arrays = []
    for i in range(h["num_vertexarrays"]):
        kind, flags, fmt, size, offset = struct.unpack_from("<5I", data, h["ofs_vertexarrays"] + 20 * i)
        code = FORMAT_CODES[fmt]
        values = struct.unpack_from(f"<{nv * size}{code}", data, offset)
        arrays.append({"type": kind, "format": fmt, "size": size,
                       "rows": [values[v * size:(v + 1) * size] for v in range(nv)]})
    return {
        "header": h, "magic": data[:16],
        "text": data[h["ofs_text"]:h["ofs_text"] + h["num_text"]],
        "meshes": [struct.unpack_from("<6I", data, h["ofs_meshes"] + 24 * i) for i in range(h["num_meshes"])],
        "arrays": arrays,
        "triangles": [struct.unpack_from("<3I", data, h["ofs_triangles"] + 12 * i) for i in range(h["num_triangles"])],
        "joints": [struct.unpack_from("<Ii10f", data, h["ofs_joints"] + 48 * i) for i in range(h["num_joints"])],
        "poses": [struct.unpack_from("<iI20f", data, h["ofs_poses"] + 88 * i) for i in range(h["num_poses"])],
        "anims": [struct.unpack_from("<3IfI", data, h["ofs_anims"] + 20 * i) for i in range(h["num_anims"])],
        "frames": [struct.unpack_from(f"<{h['num_framechannels']}H", data,
                                      h["ofs_frames"] + 2 * h["num_framechannels"] * f)
                   for f in range(h["num_frames"])],
        "bounds": [struct.unpack_from("<8f", data, h["ofs_bounds"] + 32 * f) for f in range(h["num_frames"])]
        if h["ofs_bounds"] else None,
    }


def cstr(text: bytes, offset: int) -> str:
    return text[offset:].split(b"\0", 1)[0].decode("latin-1")


def build(trailing: bytes = b"", gap: bytes = b"") -> tuple[bytes, dict]:
    """A small complete IQM: 2 meshes over 5 vertices and 3 triangles; position, texcoord, normal,
    blend indexes and weights (ubyte 4), a ubyte colour and a custom ushort x 2 array; adjacency;
    3 joints and poses (pose 2 has no animated channel); 2 anims over 4 frames; bounds; a comment;
    2 extensions. ``gap`` bytes go between the joints and the poses (unused bytes a tool left)."""
    text = b"\0body\0skin.tga\0head\0root\0spine\0neck\0walk\0idle\0ext.a\0ext.b\0\0"
    name = {s: text.index(b"\0" + s.encode() + b"\0") + 1 for s in
            ("body", "skin.tga", "head", "root", "spine", "neck", "walk", "idle", "ext.a", "ext.b")}
    nv = 5
    arrays = [(0, 7, 3, [(v, 2.0 * v, -v / 4) for v in range(nv)]),
              (1, 7, 2, [(v / 8, 1 - v / 8) for v in range(nv)]),
              (2, 7, 3, [(0.0, 0.0, 1.0)] * nv),
              (4, 1, 4, [(v % 3, 0, 0, 0) for v in range(nv)]),
              (5, 1, 4, [(255, 0, 0, 0)] * nv),
              (6, 1, 4, [(10 * v, 20, 30, 255) for v in range(nv)]),
              (0x10, 3, 2, [(1000 + v, 65535 - v) for v in range(nv)])]
    meshes = [(name["body"], name["skin.tga"], 0, 3, 0, 2), (name["head"], name["skin.tga"], 3, 2, 2, 1)]
    triangles = [(0, 1, 2), (0, 2, 1), (3, 4, 3)]
    adjacency = [(1, 0xFFFFFFFF, 1), (0, 0xFFFFFFFF, 0), (0xFFFFFFFF,) * 3]
    joints = [(name["root"], -1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1), (name["spine"], 0, 0, 0, 8, 0, 0, 0, 1, 1, 1, 1),
              (name["neck"], 1, 0, 1, 4, 0, 0, 0.6, -0.8, 1, 1, 1)]
    poses = [(-1, 0b0000000111, [0, 0, 0, 0, 0, 0, -1, 1, 1, 1], [0.01, 0.02, 0.5] + [0] * 7),
             (0, 0b0001111000, [0, 0, 8, -1, -1, -1, -1, 1, 1, 1], [0, 0, 0] + [2 / 65535] * 4 + [0] * 3),
             (1, 0, [0, 1, 4, 0, 0, 0.6, -0.8, 1, 1, 1], [0] * 10)]
    channels = 7
    frames = [[(f * 1000 + c * 37) % 65536 for c in range(channels)] for f in range(4)]
    anims = [(name["walk"], 0, 3, 24.0, 1), (name["idle"], 3, 1, 10.0, 0)]
    bounds = [(-1, -2, -3, 1 + f, 2, 3, 2.5, 4.0 + f) for f in range(4)]
    comment = b"made by a test\0"
    ext_data = [b"\x01\x02\x03", b"payload!"]

    out = bytearray(124)
    offsets = {}

    def put(key: str, block: bytes) -> None:
        out.extend(b"\0" * (-len(out) % 4))
        offsets[key] = len(out)
        out.extend(block)
    put("text", text)
    put("meshes", b"".join(struct.pack("<6I", *m) for m in meshes))
    put("vertexarrays", bytes(20 * len(arrays)))
    array_offsets = []
    for kind, fmt, size, rows in arrays:
        put(f"array{kind}", b"".join(struct.pack(f"<{size}{FORMAT_CODES[fmt]}", *r) for r in rows))
        array_offsets.append(offsets[f"array{kind}"])
    out[offsets["vertexarrays"]:offsets["vertexarrays"] + 20 * len(arrays)] = b"".join(
        struct.pack("<5I", kind, 0, fmt, size, ofs) for (kind, fmt, size, _), ofs in zip(arrays, array_offsets))
    put("triangles", b"".join(struct.pack("<3I", *t) for t in triangles))
    put("adjacency", b"".join(struct.pack("<3I", *t) for t in adjacency))
    put("joints", b"".join(struct.pack("<Ii10f", *j) for j in joints))
    out.extend(gap)
    put("poses", b"".join(struct.pack("<iI20f", p, m, *o, *s) for p, m, o, s in poses))
    put("anims", b"".join(struct.pack("<3IfI", *a) for a in anims))
    put("frames", b"".join(struct.pack(f"<{channels}H", *f) for f in frames))
    put("bounds", b"".join(struct.pack("<8f", *b) for b in bounds))
    put("comment", comment)
    put("ext0", bytes(16))
    put("ext0data", ext_data[0])
    put("ext1", bytes(16))
    put("ext1data", ext_data[1])
    out[offsets["ext0"]:offsets["ext0"] + 16] = struct.pack("<4I", name["ext.a"], 3, offsets["ext0data"], offsets["ext1"])
    out[offsets["ext1"]:offsets["ext1"] + 16] = struct.pack("<4I", name["ext.b"], 8, offsets["ext1data"], 0)
    header = dict(version=2, filesize=len(out), flags=0, num_text=len(text), ofs_text=offsets["text"],
                  num_meshes=2, ofs_meshes=offsets["meshes"], num_vertexarrays=len(arrays), num_vertexes=nv,
                  ofs_vertexarrays=offsets["vertexarrays"], num_triangles=3, ofs_triangles=offsets["triangles"],
                  ofs_adjacency=offsets["adjacency"], num_joints=3, ofs_joints=offsets["joints"], num_poses=3,
                  ofs_poses=offsets["poses"], num_anims=2, ofs_anims=offsets["anims"], num_frames=4,
                  num_framechannels=channels, ofs_frames=offsets["frames"], ofs_bounds=offsets["bounds"],
                  num_comment=len(comment), ofs_comment=offsets["comment"], num_extensions=2,
                  ofs_extensions=offsets["ext0"])
    out[:124] = b"INTERQUAKEMODEL\0" + struct.pack("<27I", *(header[n] for n in HEADER_NAMES))
    facts = {"offsets": offsets, "names": name, "text": text, "arrays": arrays, "meshes": meshes,
             "triangles": triangles, "adjacency": adjacency, "joints": joints, "poses": poses, "frames": frames,
             "anims": anims, "bounds": bounds, "comment": comment, "ext_data": ext_data, "channels": channels}
    return bytes(out) + trailing, facts


def seed_files() -> list[bytes]:
    """The files built here (every run mutates them, with or without the corpus) and the small corpus files."""
    files = [p.read_bytes() for p in corpus_files("iqm/**/*.iqm")]
    return [build()[0], build(trailing=b"tag", gap=b"GAP!")[0]] + [d for d in files if len(d) < 40_000]


def mutate(rng: random.Random, data: bytes) -> bytearray:
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        pos = rng.randrange(124) if rng.random() < 0.5 else rng.randrange(len(out))
        if rng.random() < 0.5 and pos + 4 <= len(out):
            value = rng.choice([0, 1, 0xFFFFFFFF, 0x7FFFFFFF, 1 << 31, rng.randrange(1 << 32),
                                rng.randrange(len(out) + 16), 0x7FC00000])     # the last: a float NaN
            struct.pack_into("<I", out, pos, value)
        else:
            out[pos] = rng.randrange(256)
    if rng.random() < 0.1:
        del out[rng.randrange(len(out)):]
    return out
