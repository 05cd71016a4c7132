"""Issue 29: a valid MDL made for a source port (1,313 vertices, over vanilla Quake's 1,024) imports,
and its untouched export was refused. An imported model now exports to the limits its own file
already needed, with a warning naming the engines that refuse it; a model grown past its file's
counts is held to the chosen target. The same for MD2 (2,048 vertices). Models built here."""
from __future__ import annotations

import numpy as np
import pytest
from support.md2_synthetic import grid_model
from support.operators import export_md2, export_mdl, import_md2, import_mdl

from formats.md2.codec import serialize_md2
from formats.mdl.codec import MdlFrameSlot, MdlModel, MdlSkin, serialize_mdl

VERTS = 1313


def big_mdl(verts: int = VERTS, poses: int = 3) -> MdlModel:
    """A strip of ``verts - 2`` triangles, one texel per vertex, ``poses`` single frames."""
    rng = np.random.default_rng(29)
    tris = np.stack([np.arange(verts - 2), np.arange(1, verts - 1), np.arange(2, verts)], axis=1)
    tris[1::2] = tris[1::2, ::-1]
    names = [f"rock{i + 1}" for i in range(poses)]
    return MdlModel(
        scale=np.float32([0.5, 0.5, 0.25]), translate=np.float32([-10, -10, 0]), bounding_radius=30.0,
        eye_position=np.float32([0, 0, 22]), skin_width=64, skin_height=32, synctype=0, flags=0, size=4.0,
        skins=[MdlSkin(None, rng.integers(0, 224, (1, 32, 64)).astype(np.uint8))],
        onseam=np.zeros(verts, np.int32), s=(np.arange(verts) % 64).astype(np.int32),
        t=(np.arange(verts) // 64 % 32).astype(np.int32),
        facesfront=np.ones(len(tris), np.int32), triangles=tris.astype(np.int32),
        pose_names=names, pose_verts=rng.integers(0, 256, (poses, verts, 3)).astype(np.uint8),
        pose_normals=rng.integers(0, 162, (poses, verts)).astype(np.uint8),
        pose_bbox_min=np.zeros((poses, 4), np.uint8), pose_bbox_max=np.full((poses, 4), 255, np.uint8),
        frames=[MdlFrameSlot(i, 1, None, np.zeros(4, np.uint8), np.full(4, 255, np.uint8)) for i in range(poses)])


def grow(bpy, obj) -> None:
    """One more triangle with three new vertices (a model grown in Blender)."""
    import bmesh
    bm = bmesh.new()
    bm.from_mesh(obj.data)
    new = [bm.verts.new(co) for co in ((0, 0, 0), (1, 0, 0), (0, 1, 0))]
    bm.faces.new(new)
    bm.to_mesh(obj.data)
    bm.free()
    obj.data.update()


def test_untouched_mdl_over_quakes_vertex_limit_exports_and_a_grown_one_is_refused(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    data = serialize_mdl(big_mdl())
    (tmp_path / "g_rock.mdl").write_bytes(data)
    obj = import_mdl(bpy, tmp_path / "g_rock.mdl")
    capfd.readouterr()
    assert export_mdl(bpy, obj, tmp_path / "out.mdl") == data
    report = capfd.readouterr().out
    assert (f"{VERTS} vertices (limit 1024; refused by GLQuake): over Quake's limits as its "
            "imported file already was") in report
    grow(bpy, obj)
    with pytest.raises(RuntimeError, match=rf"{VERTS + 3} vertices, {VERTS + 3 - 1024} over Quake's limit of 1024"):
        export_mdl(bpy, obj, tmp_path / "grown.mdl")
    assert not (tmp_path / "grown.mdl").exists()
    export_mdl(bpy, obj, tmp_path / "grown.mdl", target="MODERN")     # within the limits of source ports


def test_untouched_md2_over_quake2s_vertex_limit_exports_and_a_grown_one_is_refused(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    model = grid_model(nx=50, ny=42, frames=2, seed=3)            # 2100 vertices, over Quake II's 2048
    data = serialize_md2(model)
    (tmp_path / "big.md2").write_bytes(data)
    obj = import_md2(bpy, tmp_path / "big.md2")
    capfd.readouterr()
    assert export_md2(bpy, obj, tmp_path / "out" / "big.md2", skins="NAMES") == data
    assert "2100 vertices (limit 2048; refused by Quake II)" in capfd.readouterr().out
    grow(bpy, obj)
    with pytest.raises(RuntimeError, match="2103 vertices, 55 over the limit of 2048"):
        export_md2(bpy, obj, tmp_path / "out" / "grown.md2", skins="NAMES")
