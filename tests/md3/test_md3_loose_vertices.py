"""MD3 surfaces with vertices no triangle uses (issue 44): one in the middle of the vertex list, one past the
last vertex used, and a surface of vertices but no triangle, in a two-frame model written by the project's
own writer (``formats/md3/codec.py``). Imported and exported untouched with the default options, through
the operators and through ``convert --to md3``, the file comes back byte for byte: each such vertex keeps
its place, texture coordinates and every frame's position and normal."""
from __future__ import annotations

import numpy as np
import pytest
from support.actions import select_only

from formats.md3.codec import read_md3, write_md3
from formats.md3.records import Md3Model, Md3Shader, Md3Surface

FRAMES = 2
QUAD = np.array([(0, 0, 0), (64, 0, 0), (64, 0, 64), (0, 0, 64)], np.int16)
TRIS = [(0, 1, 2), (0, 2, 3)]


def _surface(name: str, loose_at: int | None, triangles: bool = True) -> Md3Surface:
    """The quad, with a vertex no triangle uses inserted at ``loose_at`` (None: none); the vertices move
    between the two frames, each normal its own."""
    points = QUAD if loose_at is None else np.insert(QUAD, loose_at, (32, 96, 200), axis=0)
    count = len(points)
    st = np.column_stack([np.linspace(0.0, 1.0, count), np.linspace(0.125, 0.875, count)[::-1]]).astype(np.float32)
    tris = [tuple(v + (loose_at is not None and v >= loose_at) for v in tri) for tri in TRIS] if triangles else []
    xyz = np.stack([points + np.int16(16 * f) for f in range(FRAMES)]).astype(np.int16)
    normal = (np.arange(FRAMES * count, dtype=np.uint16).reshape(FRAMES, count) * 517 + 3).astype(np.uint16)
    return Md3Surface(name=name, shaders=[Md3Shader(f"models/thing/{name}.tga")],
                      triangles=np.array(tris, np.int32).reshape(-1, 3), st=st, xyz=xyz, normal=normal)


def _model() -> bytes:
    bounds = np.array([[[-1.0, -1.0, -1.0], [2.0, 2.0, 4.0]]] * FRAMES, np.float32)
    model = Md3Model(name="thing", frame_names=[f"frame{f}" for f in range(FRAMES)], frame_bounds=bounds,
                     frame_origin=np.zeros((FRAMES, 3), np.float32), frame_radius=np.full(FRAMES, 4.0, np.float32),
                     tag_names=[], tag_origin=np.zeros((FRAMES, 0, 3), np.float32),
                     tag_axis=np.zeros((FRAMES, 0, 3, 3), np.float32),
                     surfaces=[_surface("middle", 2), _surface("last", 4), _surface("points", None, False)])
    return write_md3(model)


def test_the_built_file_holds_the_cases():
    model = read_md3(_model())
    used = [np.unique(s.triangles).tolist() for s in model.surfaces]
    assert [s.num_verts for s in model.surfaces] == [5, 5, 4]
    assert used == [[0, 1, 3, 4], [0, 1, 2, 3], []]


def test_an_untouched_model_with_vertices_no_triangle_uses_comes_back_byte_for_byte(bpy_scene, tmp_path):
    bpy = bpy_scene
    data = _model()
    source = tmp_path / "in" / "thing.md3"
    source.parent.mkdir()
    source.write_bytes(data)
    assert bpy.ops.import_scene.md3(filepath=str(source)) == {"FINISHED"}
    root = next(o for o in bpy.data.objects if o.get("md3_root") is not None)
    select_only(bpy, [root])
    out = tmp_path / "thing.md3"
    assert bpy.ops.export_scene.md3(filepath=str(out)) == {"FINISHED"}
    assert out.read_bytes() == data


def test_convert_gives_it_back_byte_for_byte(run, tmp_path):
    pytest.importorskip("bpy", reason="convert runs the operators in the bpy wheel")
    data = _model()
    (tmp_path / "thing.md3").write_bytes(data)
    result = run("convert", tmp_path / "thing.md3", "--to", "md3", "-o", tmp_path / "out", "-j", "1")
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "out" / "thing.md3").read_bytes() == data
