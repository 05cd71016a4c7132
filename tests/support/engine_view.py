"""What an engine drew against what Blender shows, engine-neutral and bpy-free: a pinhole camera in the
engine's coordinates (eye, id Tech's ``AngleVectors`` basis, horizontal and vertical fov, window size), a
z-buffered rasteriser of triangles into a face-id image (the silhouette is where it is not -1), the engine's
screenshot (TGA), the pixels that are not the clear colour, and the overlap of two masks (IoU).

Projection as ironwail's ``GL_FrustumMatrix`` / ``R_SetFrustum`` (gl_rmain.c) and Q2PRO's: a point p seen
from the eye at forward distance d = (p - eye)·forward lands at x_ndc = ((p - eye)·right / d) / tan(fov_x / 2),
y_ndc = ((p - eye)·up / d) / tan(fov_y / 2), pixel column (x_ndc + 1) / 2 · width, row (1 - y_ndc) / 2 ·
height from the top; a pixel is covered when its centre is inside the projected triangle.
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np


def angle_vectors(pitch: float, yaw: float, roll: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """forward, right, up of angles in degrees as id Tech's ``AngleVectors`` (Quake mathlib.c, Quake II
    q_shared.c): pitch down positive, yaw about +Z from +X, roll about forward."""
    p, y, r = (math.radians(a) for a in (pitch, yaw, roll))
    sp, cp, sy, cy, sr, cr = math.sin(p), math.cos(p), math.sin(y), math.cos(y), math.sin(r), math.cos(r)
    forward = np.array([cp * cy, cp * sy, -sp])
    right = np.array([-sr * sp * cy + cr * sy, -sr * sp * sy - cr * cy, -sr * cp])
    up = np.array([cr * sp * cy + sr * sy, cr * sp * sy - sr * cy, cr * cp])
    return forward, right, up


def fov_y(fov_x: float, width: int, height: int) -> float:
    """The vertical fov (degrees) of a horizontal one, as Quake's ``CalcFovy`` (gl_screen.c)."""
    return math.degrees(2 * math.atan(height / (width / math.tan(math.radians(fov_x) / 2))))


@dataclass
class View:
    """A camera in the engine's coordinates: eye, angles (pitch, yaw, roll, degrees), horizontal fov
    (degrees), window width and height in pixels."""
    eye: tuple[float, float, float]
    angles: tuple[float, float, float]
    fov_x: float
    width: int
    height: int

    def project(self, points: np.ndarray) -> np.ndarray:
        """(N, 3) points -> (N, 3): pixel column, pixel row (from the top, continuous: a pixel's centre is
        at +0.5), forward distance."""
        forward, right, up = angle_vectors(*self.angles)
        rel = np.asarray(points, np.float64) - np.asarray(self.eye, np.float64)
        depth = rel @ forward
        tx = math.tan(math.radians(self.fov_x) / 2)
        ty = math.tan(math.radians(fov_y(self.fov_x, self.width, self.height)) / 2)
        x_ndc = (rel @ right) / depth / tx
        y_ndc = (rel @ up) / depth / ty
        return np.stack([(x_ndc + 1) / 2 * self.width, (1 - y_ndc) / 2 * self.height, depth], 1)


def face_ids(view: View, vertices: np.ndarray, triangles: np.ndarray) -> np.ndarray:
    """(height, width) int: the index of the nearest triangle covering each pixel centre, -1 where none
    (both windings drawn, as the engines draw alias models). Triangles behind the eye are left out."""
    screen = view.project(vertices)
    ids = np.full((view.height, view.width), -1, np.int64)
    depth = np.full((view.height, view.width), np.inf)
    for t, (a, b, c) in enumerate(np.asarray(triangles)):
        pa, pb, pc = screen[a], screen[b], screen[c]
        if min(pa[2], pb[2], pc[2]) <= 0:
            continue
        x0 = max(int(math.floor(min(pa[0], pb[0], pc[0]))), 0)
        x1 = min(int(math.ceil(max(pa[0], pb[0], pc[0]))), view.width - 1)
        y0 = max(int(math.floor(min(pa[1], pb[1], pc[1]))), 0)
        y1 = min(int(math.ceil(max(pa[1], pb[1], pc[1]))), view.height - 1)
        if x0 > x1 or y0 > y1:
            continue
        area = (pb[0] - pa[0]) * (pc[1] - pa[1]) - (pb[1] - pa[1]) * (pc[0] - pa[0])
        if abs(area) < 1e-12:
            continue
        xs, ys = np.meshgrid(np.arange(x0, x1 + 1) + 0.5, np.arange(y0, y1 + 1) + 0.5)
        w0 = ((pb[0] - xs) * (pc[1] - ys) - (pb[1] - ys) * (pc[0] - xs)) / area
        w1 = ((pc[0] - xs) * (pa[1] - ys) - (pc[1] - ys) * (pa[0] - xs)) / area
        w2 = 1 - w0 - w1
        inside = (w0 >= 0) & (w1 >= 0) & (w2 >= 0)
        z = 1 / (w0 / pa[2] + w1 / pb[2] + w2 / pc[2])        # perspective-correct distance
        box_depth, box_ids = depth[y0:y1 + 1, x0:x1 + 1], ids[y0:y1 + 1, x0:x1 + 1]
        nearer = inside & (z < box_depth)
        box_depth[nearer], box_ids[nearer] = z[nearer], t
    return ids


def read_tga(path: Path) -> np.ndarray:
    """An uncompressed 24- or 32-bit TGA (type 2) as (height, width, 3) uint8 RGB, top row first (header
    byte 17 bit 5 says whether the file starts at the top)."""
    data = Path(path).read_bytes()
    id_length, colour_map, kind = data[0], data[1], data[2]
    width, height, bits, descriptor = struct.unpack_from("<HHBB", data, 12)
    if kind != 2 or colour_map or bits not in (24, 32):
        raise ValueError(f"{path}: TGA type {kind}, {bits} bits: only uncompressed truecolour is read here")
    start = 18 + id_length
    pixels = np.frombuffer(data, np.uint8, width * height * bits // 8, start).reshape(height, width, bits // 8)
    rgb = pixels[..., 2::-1]
    return np.ascontiguousarray(rgb if descriptor & 0x20 else rgb[::-1])


def foreground(image: np.ndarray, background: tuple[int, int, int], tolerance: int = 6) -> np.ndarray:
    """(height, width) bool: pixels farther than ``tolerance`` (per channel) from the clear colour."""
    return (np.abs(image.astype(np.int32) - np.asarray(background, np.int32)) > tolerance).any(-1)


def iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two masks (1.0 when both are empty)."""
    union = np.logical_or(a, b).sum()
    return float(np.logical_and(a, b).sum() / union) if union else 1.0


def erode(mask: np.ndarray, steps: int = 1) -> np.ndarray:
    """The mask without its border pixels (4-neighbourhood), ``steps`` times."""
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


def side_by_side(left: np.ndarray, right: np.ndarray, gap: int = 8) -> np.ndarray:
    """Two (h, w, 3) uint8 pictures next to each other on a grey strip, as (h, w1 + gap + w2, 4) RGBA."""
    height = max(left.shape[0], right.shape[0])
    out = np.full((height, left.shape[1] + gap + right.shape[1], 4), 128, np.uint8)
    out[:left.shape[0], :left.shape[1], :3] = left
    out[:right.shape[0], left.shape[1] + gap:, :3] = right
    out[..., 3] = 255
    return out
