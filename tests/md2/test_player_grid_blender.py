"""Quake II Player export: the body and the weapon on one grid per frame. A body and a weapon that
share a corner and move together decode (with the tests' own MD2 reader) to the identical point
in tris.md2 and weapon.md2 in every frame, in every Grid mode, and every vertex stays within half a
step of Blender's position; exported one by one they do not. An untouched imported player is
written back byte for byte."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.environment import CORPUS
from support.md2_reference import decode
from support.operators import export_md2

FRAMES = range(1, 9)
SHARED_CORNER = (1.0, 1.0, 1.0)


def box(bpy, name: str, lo, hi):
    """A cube mesh object with UVs spanning ``lo``..``hi`` (local coordinates)."""
    bpy.ops.mesh.primitive_cube_add(size=2.0)
    obj = bpy.context.active_object
    obj.name = name
    co = np.empty(len(obj.data.vertices) * 3)
    obj.data.vertices.foreach_get("co", co)
    co = co.reshape(-1, 3)
    lo, hi = np.array(lo), np.array(hi)
    co = lo + (co + 1.0) / 2.0 * (hi - lo)
    obj.data.vertices.foreach_set("co", co.ravel())
    obj.data.update()
    return obj


def animate_together(bpy, objects):
    """The same location, rotation and scale keys on every object: they move as one."""
    rng = np.random.default_rng(5)
    keys = [(f, rng.uniform(-20, 20, 3), rng.uniform(-1.5, 1.5, 3), rng.uniform(0.9, 1.4)) for f in (1, 4, 8)]
    for obj in objects:
        for frame, loc, rot, scale in keys:
            obj.location, obj.rotation_euler, obj.scale = loc, rot, (scale,) * 3
            for path in ("location", "rotation_euler", "scale"):
                obj.keyframe_insert(path, frame=frame)


def player_scene(bpy):
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = FRAMES[0], FRAMES[-1]
    scene.render.fps = 10
    body = box(bpy, "body", (-1.0, -1.0, -3.0), SHARED_CORNER)          # the hand's corner at (1, 1, 1)
    weapon = box(bpy, "weapon", SHARED_CORNER, (1.7, 1.3, 1.45))       # the gun's grip at the same corner
    animate_together(bpy, [body, weapon])
    return body, weapon


def corner_index(obj) -> int:
    co = np.array([v.co for v in obj.data.vertices])
    return int(np.flatnonzero(np.all(np.abs(co - SHARED_CORNER) < 1e-6, axis=1))[0])


def blender_world(bpy, obj) -> np.ndarray:
    """(F, V, 3) world positions Blender evaluates at each scene frame."""
    co = np.array([v.co for v in obj.data.vertices], np.float64)
    out = []
    for frame in FRAMES:
        bpy.context.scene.frame_set(frame)
        m = np.array(obj.matrix_world)
        out.append(co @ m[:3, :3].T + m[:3, 3])
    return np.array(out)


def decoded(path: Path) -> tuple[np.ndarray, np.ndarray]:
    ref = decode(path.read_bytes())
    return np.array(ref.positions, np.float64), np.array(ref.scale, np.float64)


def select(bpy, objects):
    for other in bpy.context.view_layer.objects:
        other.select_set(False)
    for obj in objects:
        obj.select_set(True)


@pytest.mark.parametrize("grid", ["AUTO", "PER_FRAME", "SHARED"])
def test_body_and_weapon_share_points_in_every_frame(bpy_scene, tmp_path, grid, capsys):
    bpy = bpy_scene
    body, weapon = player_scene(bpy)
    folder = tmp_path / "players" / "hero"
    folder.mkdir(parents=True)
    select(bpy, [body, weapon])
    assert bpy.ops.export_scene.md2(filepath=str(folder / "tris.md2"), player=True, grid=grid, skins="NAMES",
                                    frame_rate="SCENE") == {"FINISHED"}
    report = capsys.readouterr().out
    assert "MD2 grid: one grid for tris.md2, weapon.md2" in report and "largest error" in report
    tris, tris_scale = decoded(folder / "tris.md2")
    gun, gun_scale = decoded(folder / "weapon.md2")
    assert len(tris) == len(gun) == len(FRAMES)
    np.testing.assert_array_equal(tris_scale, gun_scale)
    # the shared corner is one point in both files, bit for bit, in every frame
    np.testing.assert_array_equal(tris[:, corner_index(body)], gun[:, corner_index(weapon)])
    for positions, scale, obj in ((tris, tris_scale, body), (gun, gun_scale, weapon)):
        error = np.abs(positions - blender_world(bpy, obj))
        assert np.all(error <= scale[:, None, :] / 2 + 1e-5)

    # exported one by one, each file on its own grid: the corner comes apart
    alone_body = export_md2(bpy, body, tmp_path / "alone" / "tris.md2", grid=grid, skins="NAMES", frame_rate="SCENE")
    alone_gun = export_md2(bpy, weapon, tmp_path / "alone" / "weapon.md2", grid=grid, skins="NAMES",
                           frame_rate="SCENE")
    apart = (np.array(decode(alone_body).positions)[:, corner_index(body)]
             - np.array(decode(alone_gun).positions)[:, corner_index(weapon)])
    assert np.abs(apart).max() > 0


def test_untouched_imported_player_is_written_byte_for_byte(bpy_scene, tmp_path):
    bpy = bpy_scene
    folder = CORPUS / "md2" / "petaaar88-zarlag"
    if not (folder / "tris.md2").is_file() or not (folder / "weapon.md2").is_file():
        pytest.skip(f"corpus player {folder} not found")
    assert bpy.ops.import_scene.md2(filepath=str(folder / "tris.md2")) == {"FINISHED"}
    objects = [o for o in bpy.context.view_layer.objects if o.type == "MESH"]
    assert sorted(o.name for o in objects) == ["tris", "weapon"]
    select(bpy, objects)
    out = tmp_path / "out"
    out.mkdir()
    assert bpy.ops.export_scene.md2(filepath=str(out / "tris.md2"), player=True, skins="NAMES") == {"FINISHED"}
    for name in ("tris.md2", "weapon.md2"):
        assert (out / name).read_bytes() == (folder / name).read_bytes()
