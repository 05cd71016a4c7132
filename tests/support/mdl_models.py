"""MDL models the tests build (no Blender): small synthetic files, MD16 and RAPO variants, frame tables."""
from __future__ import annotations

import dataclasses

import numpy as np

from formats import FormatError
from formats.mdl.codec import MdlFrameSlot, MdlModel, MdlSkin, parse_mdl, serialize_mdl

from .work_count import measure


def grouped_mdl():
    from formats.mdl.codec import MdlFrameSlot, MdlModel, MdlSkin
    rng = np.random.default_rng(5)
    verts = 6
    tris = np.array([[0, 1, 2], [2, 1, 3], [3, 4, 5], [0, 2, 5]], np.int32)
    poses = 5
    pose_verts = rng.integers(0, 256, (poses, verts, 3)).astype(np.uint8)
    images = rng.integers(0, 256, (2, 8, 16)).astype(np.uint8)
    return MdlModel(
        scale=np.array([0.5, 0.5, 0.25], np.float32), translate=np.array([-10, -10, 0], np.float32),
        bounding_radius=30.0, eye_position=np.array([0, 0, 22], np.float32), skin_width=16, skin_height=8,
        synctype=1, flags=8, size=4.0,
        skins=[MdlSkin(np.array([0.1, 0.25], np.float32), images), MdlSkin(None, images[:1])],
        onseam=np.array([0, 0x20, 0, 0x20, 0, 0], np.int32), s=np.array([0, 3, 5, 7, 2, 1], np.int32),
        t=np.array([0, 1, 2, 3, 4, 5], np.int32), facesfront=np.array([1, 0, 1, 0], np.int32), triangles=tris,
        pose_names=["stand1", "stand2", "torch1", "torch2", "torch3"], pose_verts=pose_verts,
        pose_normals=rng.integers(0, 162, (poses, verts)).astype(np.uint8),
        pose_bbox_min=np.zeros((poses, 4), np.uint8),
        pose_bbox_max=np.full((poses, 4), 255, np.uint8),
        frames=[MdlFrameSlot(0, 1, None, np.zeros(4, np.uint8), np.full(4, 255, np.uint8)),
                MdlFrameSlot(1, 1, None, np.zeros(4, np.uint8), np.full(4, 255, np.uint8)),
                MdlFrameSlot(2, 3, np.array([0.1, 0.2, 0.3], np.float32), np.zeros(4, np.uint8),
                             np.full(4, 255, np.uint8))])


def assert_models_equal(a: MdlModel, b: MdlModel) -> None:
    """Field by field, arrays by dtype, shape and value; skins and frame slots likewise."""
    def same(x, y, where: str) -> None:
        if dataclasses.is_dataclass(x):
            assert type(x) is type(y), where
            for f in dataclasses.fields(x):
                same(getattr(x, f.name), getattr(y, f.name), f"{where}.{f.name}")
        elif isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            assert isinstance(x, np.ndarray) and isinstance(y, np.ndarray), where
            assert x.dtype == y.dtype and x.shape == y.shape, f"{where}: {x.dtype}{x.shape} vs {y.dtype}{y.shape}"
            assert np.array_equal(x, y), where
        elif isinstance(x, list):
            assert isinstance(y, list) and len(x) == len(y), where
            for i, (u, v) in enumerate(zip(x, y)):
                same(u, v, f"{where}[{i}]")
        else:
            assert x == y and type(x) is type(y), f"{where}: {x!r} vs {y!r}"
    same(a, b, "model")


W, H = 8, 4


V, T = 5, 3


def synthetic_model(seed: int = 7, skin_width: int = W) -> MdlModel:
    """Skins [single, group of 3]; frames [simple, group of 3, simple]: five poses of five vertices."""
    rng = np.random.default_rng(seed)
    pixels = lambda n: rng.integers(0, 256, (n, H, skin_width), dtype=np.uint8)  # noqa: E731
    skins = [MdlSkin(None, pixels(1)), MdlSkin(np.array([0.1, 0.2, 0.35], np.float32), pixels(3))]
    poses = 5
    bmin = rng.integers(0, 100, (poses, 4), dtype=np.uint8)
    bmax = rng.integers(100, 256, (poses, 4), dtype=np.uint8)
    frames = [
        MdlFrameSlot(0, 1, None, bmin[0].copy(), bmax[0].copy()),
        MdlFrameSlot(1, 3, np.array([0.1, 0.2, 0.3], np.float32), np.array([1, 2, 3, 0], np.uint8),
                     np.array([250, 251, 252, 0], np.uint8)),
        MdlFrameSlot(4, 1, None, bmin[4].copy(), bmax[4].copy()),
    ]
    return MdlModel(
        scale=np.array([0.5, 0.25, 1.0], np.float32), translate=np.array([-16.0, -8.0, -24.0], np.float32),
        bounding_radius=30.5, eye_position=np.array([0.0, 0.0, 22.0], np.float32),
        skin_width=skin_width, skin_height=H, synctype=1, flags=8, size=12.25, skins=skins,
        onseam=np.array([0, 0x20, 0, 0x20, 0], np.int32), s=np.arange(V, dtype=np.int32),
        t=np.arange(V, dtype=np.int32)[::-1].copy(),
        facesfront=np.array([1, 0, 1], np.int32),
        triangles=np.array([[0, 1, 2], [2, 3, 4], [4, 0, 1]], np.int32),
        pose_names=["stand1", "flame1", "flame2", "flame3", "death"],
        pose_verts=rng.integers(0, 256, (poses, V, 3), dtype=np.uint8),
        pose_normals=rng.integers(0, 162, (poses, V), dtype=np.uint8),
        pose_bbox_min=bmin, pose_bbox_max=bmax, frames=frames)


def refused_quickly(data: bytes) -> FormatError:
    """Parse must raise FormatError at once: no more calls than parsing the intact synthetic file (nothing
    loops by the claimed count; counted, not timed) and nothing allocated near the claimed size."""
    intact = measure(parse_mdl, serialize_mdl(synthetic_model()))
    work = measure(parse_mdl, data, catch=(FormatError,))
    assert isinstance(work.error, FormatError)
    assert work.calls <= intact.calls + 50, (work.calls, intact.calls)
    assert work.peak < 4 * len(data) + (1 << 20)
    return work.error


def md16_model(seed: int = 3):
    """The codec tests' synthetic model (skin group, frame group) as MD16 with random low bytes."""
    model = synthetic_model(seed)
    rng = np.random.default_rng(seed)
    low = rng.integers(0, 256, (model.num_poses, V, 4), dtype=np.uint8)
    return dataclasses.replace(model, variant="MD16", pose_low=low)


def rapo_model(seed: int = 4):
    """RAPO: 7 texcoord records for 5 vertices, a seam record, a degenerate triangle, groups, Hexen II flags."""
    model = synthetic_model(seed)
    st = np.array([[0, 1, 1], [0x20, 2, 0], [0, 3, 2], [0, 7, 3], [0, 5, 0], [0x20, 0, 3], [0, 6, 1]], np.int32)
    return dataclasses.replace(
        model, variant="RAPO", flags=8 | (1 << 12) | (1 << 16), onseam=st[:, 0].copy(), s=st[:, 1].copy(),
        t=st[:, 2].copy(),
        facesfront=np.array([1, 0, 1, 0], np.int32),
        triangles=np.array([[0, 1, 2], [2, 3, 4], [4, 0, 1], [3, 3, 1]], np.int32),
        st_triangles=np.array([[0, 1, 2], [6, 3, 5], [4, 0, 1], [2, 2, 5]], np.int32))


SLOTS = [("candle", None), ("flame", [0.1]), ("candle", None), ("lava", [0.1, 0.25, 0.5]), ("lava", [0.2, 0.4])]


def mixed_model(verts: int = 6, tris=((0, 1, 2), (2, 1, 3), (3, 4, 5), (0, 2, 5))) -> MdlModel:
    """Single frames and groups (of one and of several poses), names repeating within and across them."""
    rng = np.random.default_rng(9)
    names, slots, first = [], [], 0
    for name, intervals in SLOTS:
        count = 1 if intervals is None else len(intervals)
        names += [name] * count
        lo, hi = rng.integers(0, 60, 4).astype(np.uint8), rng.integers(200, 256, 4).astype(np.uint8)
        slots.append(MdlFrameSlot(first, count, None if intervals is None else np.float32(intervals), lo, hi))
        first += count
    poses = len(names)
    return MdlModel(
        scale=np.float32([0.5, 0.5, 0.25]), translate=np.float32([-10, -10, 0]), bounding_radius=30.0,
        eye_position=np.float32([0, 0, 22]), skin_width=16, skin_height=8, synctype=0, flags=0, size=4.0,
        skins=[MdlSkin(None, rng.integers(0, 224, (1, 8, 16)).astype(np.uint8))],
        onseam=np.zeros(verts, np.int32), s=np.arange(verts, dtype=np.int32), t=np.arange(verts, dtype=np.int32),
        facesfront=np.ones(len(tris), np.int32), triangles=np.array(tris, np.int32).reshape(-1, 3),
        pose_names=names, pose_verts=rng.integers(0, 256, (poses, verts, 3)).astype(np.uint8),
        pose_normals=rng.integers(0, 162, (poses, verts)).astype(np.uint8),
        pose_bbox_min=rng.integers(0, 50, (poses, 4)).astype(np.uint8),
        pose_bbox_max=rng.integers(200, 256, (poses, 4)).astype(np.uint8), frames=slots)


# 16 characters each, as the two Hexen II models of the issue name their frames; two animations
HEXEN_NAMES = [f"paladin_attack{i:02d}" for i in range(1, 7)] + [f"paladin_attacb{i:02d}" for i in range(1, 5)]


def hexen_names_mdl(names: list[str] = HEXEN_NAMES) -> bytes:
    """A Quake-flavour MDL (as Hexen II's IDPO models are) with one single frame per name."""
    rng = np.random.default_rng(3)
    verts, poses = 4, len(names)
    slots = [MdlFrameSlot(i, 1, None, np.zeros(4, np.uint8), np.full(4, 255, np.uint8)) for i in range(poses)]
    model = MdlModel(
        scale=np.float32([0.5, 0.5, 0.5]), translate=np.float32([-10, -10, 0]), bounding_radius=30.0,
        eye_position=np.float32([0, 0, 22]), skin_width=8, skin_height=8, synctype=0, flags=0, size=4.0,
        skins=[MdlSkin(None, rng.integers(0, 224, (1, 8, 8)).astype(np.uint8))],
        onseam=np.zeros(verts, np.int32), s=np.arange(verts, dtype=np.int32), t=np.arange(verts, dtype=np.int32),
        facesfront=np.ones(2, np.int32), triangles=np.array([[0, 1, 2], [2, 1, 3]], np.int32),
        pose_names=list(names), pose_verts=rng.integers(0, 256, (poses, verts, 3)).astype(np.uint8),
        pose_normals=rng.integers(0, 162, (poses, verts)).astype(np.uint8),
        pose_bbox_min=np.zeros((poses, 4), np.uint8), pose_bbox_max=np.full((poses, 4), 255, np.uint8),
        frames=slots)
    model.pose_name_raw = [n.encode("latin-1").ljust(16, b"\0") for n in names]    # 16 bytes, no NUL
    return serialize_mdl(model)
