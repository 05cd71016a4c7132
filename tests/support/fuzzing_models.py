"""Structure-aware fuzz models: random but valid-ish MD2, MDL (all three flavours) and MS3D models built
through the codecs' own dataclasses and serialized (:func:`serialized_model`)."""
from __future__ import annotations

import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]
if str(CHECKOUT) not in sys.path:
    sys.path.insert(0, str(CHECKOUT))

import random
import struct
from collections.abc import Callable

import numpy as np

from formats.errors import FormatError  # noqa: E402
from formats.md2 import codec as md2  # noqa: E402
from formats.md2.glcmds import build_glcmds  # noqa: E402
from formats.mdl import codec as mdl  # noqa: E402
from formats.ms3d import records as ms3d  # noqa: E402
from formats.ms3d.write import serialize_ms3d  # noqa: E402

SERIALIZERS: dict[str, Callable[[object], bytes]] = {
    "md2": md2.serialize_md2, "mdl": mdl.serialize_mdl, "ms3d": serialize_ms3d}



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


def serialized_model(fmt: str, rng: random.Random, tame: bool = False, **choices) -> bytes:
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
