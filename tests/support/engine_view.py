"""What an engine drew against what Blender shows, engine-neutral and bpy-free: the camera is passed in
(origin, angles, horizontal fov, window size), Blender's mesh comes in as numpy arrays (positions,
triangles, optionally each triangle corner's UV), the engine's picture as its screenshot file.

Camera as the id engines' view (Quake ``AngleVectors``, mathlib.c; Q2PRO ``src/common/math.c``
``AngleVectors``, ``src/refresh/main.c`` ``GL_Frustum``; ironwail ``GL_FrustumMatrix`` / ``R_SetFrustum``,
gl_rmain.c): angles are (pitch, yaw, roll) in degrees, pitch positive looking down; x forward, y left,
z up; the horizontal fov spans the window's width and the vertical one follows from the aspect (Quake
``CalcFovy``, Q2PRO ``V_CalcFov``: tan(fov_y / 2) = height / width * tan(fov / 2)). A point p seen from
the origin at forward distance d = (p - origin)·forward lands at x_ndc = ((p - origin)·right / d) /
tan(fov / 2), y_ndc = ((p - origin)·up / d) / tan(fov_y / 2): pixel column (x_ndc + 1) / 2 · width, row
(1 - y_ndc) / 2 · height from the top (continuous: a pixel's centre is at +0.5). A pixel is covered when
its centre is inside the projected triangle (both windings, as the engines draw alias models).

- :func:`rasterize`: the nearest triangle at each pixel (the silhouette is where there is one) and its
  perspective-correct UV there; :func:`texel_colours` looks the skin up at those UVs.
- :func:`read_screenshot`: the engine's TGA (uncompressed 24/32-bit, either row order) as RGB rows.
- :func:`foreground`, :func:`iou`, :func:`erode`: the drawn pixels, the overlap of two masks, a mask
  away from its edges; :func:`nearest_colour` by chromaticity; :func:`side_by_side` for the figures.
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np


def angle_vectors(angles) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """forward, right, up of (pitch, yaw, roll) degrees, as id Tech's ``AngleVectors`` (Quake mathlib.c,
    Quake II q_shared.c): pitch down positive, yaw about +Z from +X, roll about forward."""
    p, y, r = (math.radians(a) for a in angles)
    sp, cp, sy, cy, sr, cr = math.sin(p), math.cos(p), math.sin(y), math.cos(y), math.sin(r), math.cos(r)
    forward = np.array([cp * cy, cp * sy, -sp])
    right = np.array([-sr * sp * cy + cr * sy, -sr * sp * sy - cr * cy, -sr * cp])
    up = np.array([cr * sp * cy + sr * sy, cr * sp * sy - sr * cy, cr * cp])
    return forward, right, up


def place_yawed(points: np.ndarray, origin, yaw: float) -> np.ndarray:
    """Model-space points of an entity at ``origin`` turned ``yaw`` degrees about +Z (as the engines
    place an alias model with no pitch or roll)."""
    c, s = math.cos(math.radians(yaw)), math.sin(math.radians(yaw))
    rotation = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    return np.asarray(points, np.float64) @ rotation.T + np.asarray(origin, np.float64)


@dataclass(frozen=True)
class View:
    """A camera in the engine's coordinates: origin, angles (pitch, yaw, roll, degrees), horizontal fov
    (degrees), window width and height in pixels."""
    origin: tuple[float, float, float]
    angles: tuple[float, float, float]
    fov: float
    width: int
    height: int

    def project(self, points: np.ndarray) -> np.ndarray:
        """(N, 3) world points -> (N, 3): pixel column, pixel row (from the top), forward distance."""
        forward, right, up = angle_vectors(self.angles)
        rel = np.asarray(points, np.float64) - np.asarray(self.origin, np.float64)
        depth = rel @ forward
        tan_x = math.tan(math.radians(self.fov) / 2)
        tan_y = tan_x * self.height / self.width
        x_ndc = (rel @ right) / depth / tan_x
        y_ndc = (rel @ up) / depth / tan_y
        return np.stack([(x_ndc + 1) / 2 * self.width, (1 - y_ndc) / 2 * self.height, depth], 1)


@dataclass
class Raster:
    triangle: np.ndarray      # (H, W) int: the visible triangle at each pixel, -1 where none
    uv: np.ndarray            # (H, W, 2): its UV there (perspective-correct), 0 where none or no UVs given

    @property
    def mask(self) -> np.ndarray:
        return self.triangle >= 0


def rasterize(view: View, positions: np.ndarray, triangles: np.ndarray, corner_uvs: np.ndarray | None = None
              ) -> Raster:
    """Draw world ``positions`` (N, 3) joined by ``triangles`` (T, 3) as ``view`` sees them, both faces,
    nearest first; ``corner_uvs`` (T, 3, 2) gives each triangle corner's UV (v up, Blender's). Triangles
    reaching behind the eye are left out."""
    h, w = view.height, view.width
    screen = view.project(positions)
    depth = screen[:, 2]
    owner = np.full((h, w), -1, np.int64)
    zbuf = np.full((h, w), np.inf)
    uv = np.zeros((h, w, 2))
    for t, (a, b, c) in enumerate(np.asarray(triangles, np.int64)):
        if min(depth[a], depth[b], depth[c]) <= 1e-3:
            continue
        pa, pb, pc = screen[a], screen[b], screen[c]
        x0, x1 = max(math.floor(min(pa[0], pb[0], pc[0])), 0), min(math.ceil(max(pa[0], pb[0], pc[0])), w)
        y0, y1 = max(math.floor(min(pa[1], pb[1], pc[1])), 0), min(math.ceil(max(pa[1], pb[1], pc[1])), h)
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
        z = 1 / (wa / depth[a] + wb / depth[b] + wc / depth[c])        # 1/z is linear on screen
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
    texel (v up: row 0 is v = 1); 0 where nothing is drawn."""
    h, w = image.shape[:2]
    col = np.clip((raster.uv[..., 0] * w).astype(np.int64), 0, w - 1)
    row = np.clip(((1 - raster.uv[..., 1]) * h).astype(np.int64), 0, h - 1)
    out = image[row, col, :3].astype(np.int64)
    out[~raster.mask] = 0
    return out


def read_screenshot(path: Path) -> np.ndarray:
    """An engine's uncompressed 24- or 32-bit TGA (type 2) as (height, width, 3) uint8 RGB, top row first
    (header byte 17 bit 5 says whether the file starts at the top)."""
    data = Path(path).read_bytes()
    id_length, colour_map, kind = data[0], data[1], data[2]
    width, height, bits, descriptor = struct.unpack_from("<HHBB", data, 12)
    if kind != 2 or colour_map or bits not in (24, 32):
        raise ValueError(f"{path}: TGA type {kind}, {bits} bits: only uncompressed truecolour is read here")
    pixels = np.frombuffer(data, np.uint8, width * height * bits // 8, 18 + id_length)
    rgb = pixels.reshape(height, width, bits // 8)[..., 2::-1]
    return np.ascontiguousarray(rgb if descriptor & 0x20 else rgb[::-1])


def foreground(image: np.ndarray, background=(0, 0, 0), tolerance: int = 8) -> np.ndarray:
    """(height, width) bool: pixels farther than ``tolerance`` (in some channel) from the clear colour."""
    return (np.abs(image[..., :3].astype(np.int64) - np.asarray(background, np.int64)) > tolerance).any(-1)


def iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two boolean masks (1.0 when both are empty)."""
    union = np.logical_or(a, b).sum()
    return float(np.logical_and(a, b).sum() / union) if union else 1.0


def erode(mask: np.ndarray, steps: int) -> np.ndarray:
    """``mask`` shrunk by ``steps`` pixels (4-neighbour erosion): the pixels away from any edge."""
    out = mask.copy()
    for _ in range(steps):
        inner = out.copy()
        inner[1:] &= out[:-1]
        inner[:-1] &= out[1:]
        inner[:, 1:] &= out[:, :-1]
        inner[:, :-1] &= out[:, 1:]
        out = inner
    return out


def chromaticity(rgb: np.ndarray) -> np.ndarray:
    """(..., 3) colours scaled to sum 1: what a lighting factor (the same on every channel) keeps."""
    rgb = np.asarray(rgb, np.float64)
    return rgb / np.maximum(rgb.sum(-1, keepdims=True), 1e-9)


def nearest_colour(rgb: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """(...) index of the candidate colour whose chromaticity is nearest each pixel's."""
    pix, cand = chromaticity(rgb), chromaticity(candidates)
    return np.linalg.norm(pix[..., None, :] - cand, axis=-1).argmin(-1)


GREY = 96


def side_by_side(left: np.ndarray, right: np.ndarray, gap: int = 8) -> np.ndarray:
    """Two RGB(A) pictures next to each other on grey, as (h, w1 + gap + w2, 4) opaque RGBA (a figure
    for ``image_files.write_png``)."""
    height = max(left.shape[0], right.shape[0])
    out = np.full((height, left.shape[1] + gap + right.shape[1], 4), GREY, np.uint8)
    out[:left.shape[0], :left.shape[1], :3] = left[..., :3]
    out[:right.shape[0], left.shape[1] + gap:, :3] = right[..., :3]
    out[..., 3] = 255
    return out
