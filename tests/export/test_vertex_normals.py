"""Blender's vertex normals in numpy (no Blender): against a loop-by-loop transcription of Blender's
``normals_calc_verts`` / ``face_normal_calc`` written here, on meshes with non-planar quads and
n-gons, many frames at once; custom normals carried through rigid motions and read back unchanged
on the positions they were read on."""
from __future__ import annotations

import numpy as np
import pytest

from exporters.sampling.vertex_normals import custom_coefficients, grouped_normals, polygon_corners, polygon_normals


def reference_vertex_normals(positions: np.ndarray, polygons: list[list[int]]) -> np.ndarray:
    """Blender's algorithm, one vertex and polygon at a time (exact acos)."""
    out = np.zeros_like(positions, dtype=np.float64)
    for polygon in polygons:
        p = positions[polygon].astype(np.float64)
        if len(p) == 3:
            normal = np.cross(p[0] - p[1], p[1] - p[2])                  # normal_tri_v3
        elif len(p) == 4:
            normal = np.cross(p[0] - p[2], p[1] - p[3])                  # normal_quad_v3
        else:
            normal = np.zeros(3)                                         # Newell
            for i in range(len(p)):
                a, b = p[i - 1], p[i]
                normal += [(a[1] - b[1]) * (a[2] + b[2]), (a[2] - b[2]) * (a[0] + b[0]),
                           (a[0] - b[0]) * (a[1] + b[1])]
        normal /= np.linalg.norm(normal)
        for i, vertex in enumerate(polygon):
            to_prev = p[i - 1] - p[i]
            to_next = p[(i + 1) % len(p)] - p[i]
            cos = np.dot(to_prev, to_next) / np.linalg.norm(to_prev) / np.linalg.norm(to_next)
            out[vertex] += normal * np.arccos(np.clip(cos, -1.0, 1.0))
    return out / np.linalg.norm(out, axis=1, keepdims=True)


def corners_of(polygons: list[list[int]]):
    sizes = np.array([len(p) for p in polygons])
    return polygon_corners(np.concatenate(polygons), np.cumsum(sizes) - sizes, sizes)


def bumpy_grid(n: int = 6, seed: int = 1) -> tuple[np.ndarray, list[list[int]]]:
    """An n x n grid of non-planar quads, one hexagon and a few triangles, on a bumpy surface."""
    rng = np.random.default_rng(seed)
    xs, ys = np.meshgrid(np.arange(n + 1, dtype=np.float64), np.arange(n + 1, dtype=np.float64))
    positions = np.stack([xs.ravel(), ys.ravel(), rng.uniform(-0.4, 0.4, xs.size)], axis=1)
    index = np.arange((n + 1) ** 2).reshape(n + 1, n + 1)
    polygons = []
    for y in range(n):
        for x in range(n):
            quad = [index[y, x], index[y, x + 1], index[y + 1, x + 1], index[y + 1, x]]
            if (x, y) == (1, 1):
                polygons += [[quad[0], quad[1], quad[2]], [quad[0], quad[2], quad[3]]]
            elif (x, y) != (3, 3) and (x, y) != (4, 3):
                polygons.append([int(v) for v in quad])
    polygons.append([int(index[3, 3]), int(index[3, 4]), int(index[3, 5]),
                     int(index[4, 5]), int(index[4, 4]), int(index[4, 3])])     # the hexagon
    return positions, polygons


def test_vertex_normals_match_blenders_algorithm_in_every_frame():
    positions, polygons = bumpy_grid()
    rng = np.random.default_rng(2)
    frames = np.stack([positions + rng.normal(0, 0.1, positions.shape) for _ in range(5)])
    got = grouped_normals(frames, corners_of(polygons))
    for frame, position in zip(got, frames):
        expected = reference_vertex_normals(position, polygons)
        np.testing.assert_allclose(frame, expected, atol=2e-6)           # float32 output


def test_a_non_planar_quad_is_not_its_two_triangles():
    """The quad's own normal and corner angles differ from those of the triangles it is drawn with."""
    positions = np.array([[0, 0, 0], [2, 0, 0], [2, 1, 0.8], [0, 1, 0], [-1, 0.5, 0.3]], dtype=np.float64)
    quad = [[0, 1, 2, 3], [0, 3, 4]]
    triangles = [[0, 1, 2], [0, 2, 3], [0, 3, 4]]
    as_quad = grouped_normals(positions[None], corners_of(quad))[0]
    as_triangles = grouped_normals(positions[None], corners_of(triangles))[0]
    np.testing.assert_allclose(as_quad, reference_vertex_normals(positions, quad), atol=1e-6)
    assert np.degrees(np.arccos(np.clip(np.einsum("ij,ij->i", as_quad, as_triangles), -1, 1)))[0] > 1.0
    expected = np.cross(positions[0] - positions[2], positions[1] - positions[3])
    np.testing.assert_allclose(polygon_normals(positions[None], corners_of(quad))[0, 0],
                               expected / np.linalg.norm(expected), atol=1e-12)


def test_cube_corners_get_the_diagonal():
    corners = [[0, 1, 3, 2], [4, 6, 7, 5], [0, 4, 5, 1], [2, 3, 7, 6], [0, 2, 6, 4], [1, 5, 7, 3]]
    cube = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=np.float64)
    normals = grouped_normals(cube[None], corners_of(corners))[0]
    np.testing.assert_allclose(np.abs(normals), 1 / np.sqrt(3), atol=1e-6)
    assert np.all(np.einsum("ij,ij->i", normals, cube) > 0), "the cube's faces wind outwards"


def _rotation(seed: int) -> np.ndarray:
    q, r = np.linalg.qr(np.random.default_rng(seed).normal(size=(3, 3)))
    q *= np.sign(np.diag(r))
    return q if np.linalg.det(q) > 0 else -q


@pytest.mark.parametrize("seed", (0, 1, 2))
def test_custom_normals_read_back_and_turn_with_the_mesh(seed):
    positions, polygons = bumpy_grid(seed=seed)
    corners = corners_of(polygons)
    automatic = grouped_normals(positions[None], corners)[0]
    rng = np.random.default_rng(seed + 10)
    custom = automatic + rng.uniform(-0.5, 0.5, automatic.shape)
    custom /= np.linalg.norm(custom, axis=1, keepdims=True)
    corners.custom = custom_coefficients(positions, corners, custom[corners.corner_vertex])
    assert not np.isnan(corners.custom).any()
    rotation = _rotation(seed)
    frames = np.stack([positions, 2.5 * positions @ rotation.T + [1.0, -2.0, 3.0]])
    got = grouped_normals(frames, corners)
    np.testing.assert_allclose(got[0], custom, atol=1e-5)
    np.testing.assert_allclose(got[1], custom @ rotation.T, atol=1e-5)
