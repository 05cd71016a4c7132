"""What an engine's camera sees, computed here from Blender's mesh, to compare with the engine's screenshot
(engine-neutral, bpy-free: positions, triangles and UVs come in as numpy arrays).

The camera follows the id engines' view (Quake ``AngleVectors``; Q2PRO ``src/common/math.c``
``AngleVectors``, ``src/refresh/main.c`` ``GL_Frustum``): angles are (pitch, yaw, roll) in degrees, pitch
positive looking down; x forward, y left, z up; the horizontal field of view ``fov`` spans the screen's
width and the vertical one follows from the aspect (``V_CalcFov``: tan(fov_y/2) = h/w tan(fov/2)).
Screen rows here run top to bottom, pixel centres at +0.5.

- :func:`rasterize`: which triangle covers each pixel's centre (a depth test), the silhouette, and for
  each covered pixel the perspective-correct UV (to look up the skin colour Blender's model shows there).
- :func:`read_screenshot`: an engine's TGA (uncompressed 24/32-bit, either row order) or PNG, as RGB rows
  top to bottom.
- :func:`overlap`: intersection over union of two masks.
"""
from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np


def angle_vectors(angles) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """forward, right, up of (pitch, yaw, roll) degrees, as Quake's ``AngleVectors``."""
    p, y, r = np.radians(np.asarray(angles, np.float64))
    sp, cp, sy, cy, sr, cr = np.sin(p), np.cos(p), np.sin(y), np.cos(y), np.sin(r), np.cos(r)
    forward = np.array([cp * cy, cp * sy, -sp])
    right = np.array([-sr * sp * cy + cr * sy, -sr * sp * sy - cr * cy, -sr * cp])
    up = np.array([cr * sp * cy + sr * sy, cr * sp * sy - sr * cy, cr * cp])
    return forward, right, up


def place_yawed(points: np.ndarray, origin, yaw: float) -> np.ndarray:
    """Model-space points of an entity at ``origin`` turned ``yaw`` degrees about z (x forward, y left)."""
    c, s = np.cos(np.radians(yaw)), np.sin(np.radians(yaw))
    rotation = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    return np.asarray(points, np.float64) @ rotation.T + np.asarray(origin, np.float64)


@dataclass(frozen=True)
class View:
    origin: tuple[float, float, float]
    angles: tuple[float, float, float]
    fov: float
    width: int
    height: int

    def project(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Screen (x, y) in pixels (y down) and depth along the view of world ``points`` (N, 3)."""
        forward, right, up = angle_vectors(self.angles)
        rel = np.asarray(points, np.float64) - np.asarray(self.origin, np.float64)
        depth = rel @ forward
        tan_x = np.tan(np.radians(self.fov) / 2)
        tan_y = tan_x * self.height / self.width
        x = (1 + (rel @ right) / depth / tan_x) * self.width / 2
        y = (1 - (rel @ up) / depth / tan_y) * self.height / 2
        return np.stack([x, y], 1), depth


@dataclass
class Raster:
    triangle: np.ndarray      # (H, W) int: the visible triangle at each pixel, -1 where none
    uv: np.ndarray            # (H, W, 2): its UV there (perspective-correct), 0 where none

    @property
    def mask(self) -> np.ndarray:
        return self.triangle >= 0


def rasterize(view: View, positions: np.ndarray, triangles: np.ndarray, corner_uvs: np.ndarray | None = None
              ) -> Raster:
    """Draw world ``positions`` (N, 3) joined by ``triangles`` (T, 3) as ``view`` sees them, both faces,
    nearest first; ``corner_uvs`` (T, 3, 2) gives each triangle corner's UV (v up, Blender's)."""
    h, w = view.height, view.width
    screen, depth = view.project(positions)
    owner = np.full((h, w), -1, np.int64)
    zbuf = np.full((h, w), np.inf)
    uv = np.zeros((h, w, 2))
    for t, (a, b, c) in enumerate(np.asarray(triangles, np.int64)):
        if min(depth[a], depth[b], depth[c]) <= 1e-3:
            continue
        pa, pb, pc = screen[a], screen[b], screen[c]
        x0, x1 = int(max(np.floor(min(pa[0], pb[0], pc[0])), 0)), int(min(np.ceil(max(pa[0], pb[0], pc[0])), w))
        y0, y1 = int(max(np.floor(min(pa[1], pb[1], pc[1])), 0)), int(min(np.ceil(max(pa[1], pb[1], pc[1])), h))
        if x0 >= x1 or y0 >= y1:
            continue
        area = (pb[0] - pa[0]) * (pc[1] - pa[1]) - (pb[1] - pa[1]) * (pc[0] - pa[0])
        if abs(area) < 1e-12:
            continue
        gx, gy = np.meshgrid(np.arange(x0, x1) + 0.5, np.arange(y0, y1) + 0.5)
        wa = ((pb[0] - gx) * (pc[1] - gy) - (pb[1] - gy) * (pc[0] - gx)) / area
        wb = ((pc[0] - gx) * (pa[1] - gy) - (pc[1] - gy) * (pa[0] - gx)) / area
        wc = 1 - wa - wb
        inside = (wa >= 0) & (wb >= 0) & (wc >= 0)
        if not inside.any():
            continue
        inv = wa / depth[a] + wb / depth[b] + wc / depth[c]          # 1/z is linear on screen
        z = 1 / inv
        region = zbuf[y0:y1, x0:x1]
        win = inside & (z < region)
        region[win] = z[win]
        owner[y0:y1, x0:x1][win] = t
        if corner_uvs is not None:
            corners = np.asarray(corner_uvs[t], np.float64)
            persp = np.stack([wa / depth[a], wb / depth[b], wc / depth[c]], -1) * z[..., None]
            uv[y0:y1, x0:x1][win] = (persp @ corners)[win]
    return Raster(owner, uv)


def texel_colours(raster: Raster, image: np.ndarray) -> np.ndarray:
    """(H, W, 3) the colour of ``image`` (rows top to bottom, RGB) at each covered pixel's UV, nearest
    texel (v up: row 0 is v = 1)."""
    h, w = image.shape[:2]
    col = np.clip((raster.uv[..., 0] * w).astype(np.int64), 0, w - 1)
    row = np.clip(((1 - raster.uv[..., 1]) * h).astype(np.int64), 0, h - 1)
    out = image[row, col, :3].astype(np.int64)
    out[~raster.mask] = 0
    return out


def read_screenshot(path: Path) -> np.ndarray:
    """RGB (H, W, 3) uint8, top row first, of a TGA (type 2, 24 or 32 bits) or PNG (8-bit RGB/RGBA)."""
    data = Path(path).read_bytes()
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return _read_png(data)
    id_len, cmap, kind = data[0], data[1], data[2]
    w, h, bpp, desc = struct.unpack_from("<HHBB", data, 12)
    assert cmap == 0 and kind == 2 and bpp in (24, 32), f"{path.name}: not an uncompressed true-colour TGA"
    size = bpp // 8
    pixels = np.frombuffer(data, np.uint8, w * h * size, 18 + id_len).reshape(h, w, size)[..., [2, 1, 0]]
    return pixels if desc & 0x20 else pixels[::-1]


def _read_png(data: bytes) -> np.ndarray:
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack_from(">I4s", data, pos)
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    w, h, depth, colour = header[:4]
    assert depth == 8 and colour in (2, 6), "8-bit RGB or RGBA PNG only"
    channels = 3 if colour == 2 else 4
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, 1 + w * channels)
    out = np.zeros((h, w * channels), np.int64)
    for y in range(h):                         # PNG filters, row by row
        kind, line = raw[y, 0], raw[y, 1:].astype(np.int64)
        prior = out[y - 1] if y else np.zeros(w * channels, np.int64)
        if kind == 0:
            out[y] = line
        elif kind == 2:
            out[y] = (line + prior) & 255
        else:
            row = np.zeros(w * channels, np.int64)
            for x in range(w * channels):
                left = row[x - channels] if x >= channels else 0
                up_left = prior[x - channels] if x >= channels else 0
                if kind == 1:
                    row[x] = (line[x] + left) & 255
                elif kind == 3:
                    row[x] = (line[x] + (left + prior[x]) // 2) & 255
                else:
                    p = left + prior[x] - up_left
                    pa, pb, pc = abs(p - left), abs(p - prior[x]), abs(p - up_left)
                    pred = left if pa <= pb and pa <= pc else prior[x] if pb <= pc else up_left
                    row[x] = (line[x] + pred) & 255
            out[y] = row
    return out.reshape(h, w, channels)[..., :3].astype(np.uint8)


def lit(image: np.ndarray, background=(0, 0, 0), tolerance: int = 8) -> np.ndarray:
    """Pixels that differ from the cleared ``background`` by more than ``tolerance`` in a channel."""
    return np.any(np.abs(image[..., :3].astype(np.int64) - np.asarray(background)) > tolerance, axis=-1)


def overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two boolean masks (1.0 for two empty ones)."""
    union = np.logical_or(a, b).sum()
    return float(np.logical_and(a, b).sum() / union) if union else 1.0


def interior(mask: np.ndarray, steps: int = 2) -> np.ndarray:
    """``mask`` shrunk by ``steps`` pixels (4-neighbour erosion): pixels away from any edge."""
    out = mask.copy()
    for _ in range(steps):
        shrunk = out.copy()
        shrunk[1:] &= out[:-1]
        shrunk[:-1] &= out[1:]
        shrunk[:, 1:] &= out[:, :-1]
        shrunk[:, :-1] &= out[:, 1:]
        out = shrunk
    return out


def side_by_side(left: np.ndarray, right: np.ndarray, gap: int = 8) -> np.ndarray:
    """Two RGB images of one height next to each other on grey, for a figure."""
    h = max(left.shape[0], right.shape[0])
    out = np.full((h, left.shape[1] + gap + right.shape[1], 3), 96, np.uint8)
    out[:left.shape[0], :left.shape[1]] = left[..., :3]
    out[:right.shape[0], left.shape[1] + gap:] = right[..., :3]
    return out
