"""Real programs that read our exports, for the "Proof: in a real engine" tests.

- DarkPlaces (Debian ``darkplaces-server``) loads MDL and MD2 with no game data:
  ``darkplaces-server -basedir DIR +modelprecache progs/m.mdl +modeldecompile progs/m.mdl +quit`` writes
  ``$HOME/.darkplaces/id1/progs/m_decompiled.obj``. ``Mod_Decompile_OBJ`` (DarkPlaces ``model_shared.c``)
  writes ``model->surfmesh.data_vertex3f``, the first frame of an alias model, with Y and Z swapped
  (``v x z y`` in Debian's 0~20180908; newer sources write ``-y``), each triangle as ``f e0 e2 e1``;
  alias models have no poses, so no other frame is written.
- Maverick Model 3D (``mm3d``): ``QT_QPA_PLATFORM=offscreen mm3d --convert obj x.ms3d`` writes ``x.obj``
  and ``x.mtl`` (the model's vertices in MilkShape's own axes, one ``newmtl`` per material with its
  ``map_Kd``).
- Assimp (``assimp-utils``): ``assimp info x.ms3d`` (vertex, face, material and bone counts, material
  names) and ``assimp export x.ms3d x.obj``.

A missing program skips its test with the line saying what to install; under CI (``CI=true``) the test
fails instead (``tools/engine_tools.sh`` installs them there).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from .environment import CHECKOUT, skip_inside_blender

# program -> (where to look besides PATH, the Debian package holding it)
PROGRAMS = {
    "darkplaces-server": ("/usr/games/darkplaces-server", "darkplaces-server"),
    "mm3d": ("/usr/bin/mm3d", "mm3d"),
    "assimp": ("/usr/bin/assimp", "assimp-utils"),
    "openarena": ("/usr/games/openarena", "openarena"),
    "xvfb-run": ("/usr/bin/xvfb-run", "xvfb"),
}


def require(program: str) -> str:
    """The program's path; else skip (or fail under CI) saying which package to install."""
    extra, package = PROGRAMS[program]
    found = shutil.which(program) or (extra if os.access(extra, os.X_OK) else None)
    if found:
        return found
    message = f"install {package} (Debian: apt-get install {package}) to run this test"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{program} is missing under CI: {message}; tools/engine_tools.sh installs it")
    pytest.skip(message)



# The engines built from source (ironwail, Q2PRO) draw exports made in Blender: a few minutes of engine runs
# per wheel. They run on one Blender of the test command's wheels, the oldest (as the DarkPlaces conversions);
# the other wheels and the quick lane (the newest) skip them saying so. The exports themselves are checked on
# every wheel by the export tests. CLASSIC_MODELS_ENGINES_EVERYWHERE=1 runs them on any Blender.
SOURCE_ENGINES_ON = (4, 2)


def on_source_engine_wheel() -> None:
    """Skip a source-built engine's test on a Blender other than ``SOURCE_ENGINES_ON`` (bpy-free tests run)."""
    bpy = sys.modules.get("bpy")
    if bpy is None or os.environ.get("CLASSIC_MODELS_ENGINES_EVERYWHERE") == "1":
        return
    if tuple(bpy.app.version[:2]) != SOURCE_ENGINES_ON:
        pytest.skip(f"the ironwail and Q2PRO drawings (minutes of engine runs) run on Blender "
                    f"{SOURCE_ENGINES_ON[0]}.{SOURCE_ENGINES_ON[1]} only (tools/dev.sh test runs it; or set "
                    f"CLASSIC_MODELS_ENGINES_EVERYWHERE=1); this is Blender {bpy.app.version_string}")

@dataclass
class ObjMesh:
    """What a program wrote as Wavefront OBJ: positions (N, 3), triangles (T, 3) as 0-based indices,
    the material of each triangle, and each material's ``map_Kd`` from the .mtl."""
    positions: np.ndarray
    triangles: np.ndarray
    triangle_materials: list[str]
    textures: dict[str, str] = field(default_factory=dict)
    log: str = ""


def parse_obj(path: Path) -> ObjMesh:
    positions, triangles, materials, textures = [], [], [], {}
    current = ""
    for line in path.read_text(errors="replace").splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "v":
            positions.append([float(x) for x in parts[1:4]])
        elif parts[0] == "f":
            corners = [int(p.split("/")[0]) for p in parts[1:]]
            corners = [c - 1 if c > 0 else len(positions) + c for c in corners]
            for k in range(1, len(corners) - 1):
                triangles.append([corners[0], corners[k], corners[k + 1]])
                materials.append(current)
        elif parts[0] == "usemtl":
            current = line.split(None, 1)[1].strip() if len(parts) > 1 else ""
        elif parts[0] == "mtllib":
            mtl = path.parent / Path(line.split(None, 1)[1].strip()).name
            if mtl.is_file():
                textures = _mtl_textures(mtl)
    return ObjMesh(np.array(positions, dtype=np.float64).reshape(-1, 3),
                   np.array(triangles, dtype=np.int64).reshape(-1, 3), materials, textures)


def _mtl_textures(path: Path) -> dict[str, str]:
    textures, name = {}, None
    for line in path.read_text(errors="replace").splitlines():
        parts = line.strip().split(None, 1)
        if not parts:
            continue
        if parts[0] == "newmtl":
            name = parts[1].strip() if len(parts) > 1 else ""
            textures[name] = ""
        elif parts[0] == "map_Kd" and name is not None and len(parts) > 1:
            textures[name] = parts[1].strip()
    return textures


def darkplaces_first_frame(model: Path, work: Path) -> ObjMesh:
    """Load ``model`` (MDL or MD2) in DarkPlaces and return the frame it decompiles (the first), in
    Quake's axes (the OBJ's ``x z y`` undone)."""
    exe = require("darkplaces-server")
    base, home = work / "dp_base", work / "dp_home"
    progs = base / "id1" / "progs"
    progs.mkdir(parents=True, exist_ok=True)
    home.mkdir(parents=True, exist_ok=True)
    name = f"progs/m{model.suffix.lower()}"
    shutil.copyfile(model, base / "id1" / name)
    out = home / ".darkplaces" / "id1" / "progs" / "m_decompiled.obj"
    if out.exists():
        out.unlink()
    run = subprocess.run([exe, "-basedir", str(base), "+net_address", "127.0.0.1", "+modelprecache", name,
                          "+modeldecompile", name, "+quit"], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, HOME=str(home)), cwd=work)
    log = run.stdout + run.stderr
    assert out.is_file(), f"DarkPlaces did not load {model.name}:\n{log[-2000:]}"
    mesh = parse_obj(out)
    mesh.positions = mesh.positions[:, [0, 2, 1]]
    mesh.log = log
    return mesh


def mm3d_obj(model: Path, work: Path) -> ObjMesh:
    """Maverick Model 3D's OBJ of ``model`` (MilkShape axes), with its .mtl textures."""
    exe = require("mm3d")
    folder = work / "mm3d"
    folder.mkdir(parents=True, exist_ok=True)
    copy = folder / model.name
    shutil.copyfile(model, copy)
    runtime = work / "xdg"
    runtime.mkdir(mode=0o700, exist_ok=True)
    run = subprocess.run([exe, "--convert", "obj", str(copy)], capture_output=True, text=True, timeout=120,
                         cwd=folder, env=dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_RUNTIME_DIR=str(runtime),
                                              HOME=str(work)))
    out = copy.with_suffix(".obj")
    assert out.is_file(), f"mm3d did not convert {model.name}:\n{(run.stdout + run.stderr)[-2000:]}"
    mesh = parse_obj(out)
    mesh.log = run.stdout + run.stderr
    return mesh


@dataclass
class AssimpInfo:
    vertices: int
    faces: int
    materials: list[str]
    bones: int
    meshes: int
    log: str


def assimp_info(model: Path) -> AssimpInfo:
    exe = require("assimp")
    run = subprocess.run([exe, "info", str(model)], capture_output=True, text=True, timeout=120)
    text = run.stdout + run.stderr
    assert run.returncode == 0 and "Faces:" in text, f"assimp could not read {model.name}:\n{text[-2000:]}"

    def count(label: str) -> int:
        return int(re.search(rf"^{label}:\s+(\d+)", text, re.M).group(1))
    named = text.split("Named Materials:", 1)[1] if "Named Materials:" in text else ""
    materials = re.findall(r"^    '(.*)' \(prop\)", named, re.M)
    return AssimpInfo(count("Vertices"), count("Faces"), materials, count("Bones"), count("Meshes"), text)


def assimp_obj(model: Path, work: Path) -> ObjMesh:
    exe = require("assimp")
    out = work / "assimp" / f"{model.stem}.obj"
    out.parent.mkdir(parents=True, exist_ok=True)
    run = subprocess.run([exe, "export", str(model), str(out)], capture_output=True, text=True, timeout=120)
    assert out.is_file(), f"assimp did not export {model.name}:\n{(run.stdout + run.stderr)[-2000:]}"
    return parse_obj(out)


def cli(*args: object, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    """``python -m classic_models ARGS`` as a user runs it (the checkout linked as ``classic_models``)."""
    if args and str(args[0]) == "convert":
        skip_inside_blender("python -m classic_models convert")
    link = cwd / "_pkgpath" / "classic_models"
    link.parent.mkdir(parents=True, exist_ok=True)
    if not link.exists():
        link.symlink_to(CHECKOUT, target_is_directory=True)
    env = dict(os.environ, PYTHONPATH=str(link.parent))
    return subprocess.run([sys.executable, "-m", "classic_models", *map(str, args)], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=timeout)


def world_surface(bpy, objects, frame: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Blender's evaluated positions (world space), loop triangles and each triangle's polygon (numbered
    across ``objects``) at scene ``frame``."""
    bpy.context.scene.frame_set(frame)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    positions, triangles, polygons, offset, polygon_offset = [], [], [], 0, 0
    for obj in objects:
        evaluated = obj.evaluated_get(depsgraph)
        mesh = evaluated.to_mesh()
        co = np.empty(len(mesh.vertices) * 3, dtype=np.float64)
        mesh.vertices.foreach_get("co", co)
        co = co.reshape(-1, 3)
        matrix = np.array(evaluated.matrix_world, dtype=np.float64)
        positions.append(co @ matrix[:3, :3].T + matrix[:3, 3])
        mesh.calc_loop_triangles()
        tris = np.empty(len(mesh.loop_triangles) * 3, dtype=np.int64)
        mesh.loop_triangles.foreach_get("vertices", tris)
        triangles.append(tris.reshape(-1, 3) + offset)
        owner = np.empty(len(mesh.loop_triangles), dtype=np.int64)
        mesh.loop_triangles.foreach_get("polygon_index", owner)
        polygons.append(owner + polygon_offset)
        offset += len(mesh.vertices)
        polygon_offset += len(mesh.polygons)
        evaluated.to_mesh_clear()
    return np.concatenate(positions), np.concatenate(triangles), np.concatenate(polygons)


def select_only(bpy, objects) -> None:
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj in objects)
    bpy.context.view_layer.objects.active = objects[0]


def nearest(points: np.ndarray, targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each point, the index of the nearest target and the per-axis distance to it."""
    index = np.empty(len(points), dtype=np.int64)
    for start in range(0, len(points), 512):
        chunk = points[start:start + 512]
        index[start:start + 512] = np.argmin(((chunk[:, None, :] - targets[None, :, :]) ** 2).sum(-1), axis=1)
    return index, np.abs(points - targets[index])


def assert_same_surface(found: ObjMesh, positions: np.ndarray, triangles: np.ndarray, polygon_of: np.ndarray,
                        tolerance, what: str) -> None:
    """The program's vertices and triangles are Blender's: every vertex it loaded lies within
    ``tolerance`` (per axis) of a Blender vertex and every Blender vertex has one within it; there are as
    many triangles as Blender's loop triangles, and each joins three corners of one Blender polygon
    (``polygon_of``: the polygon of each of Blender's ``triangles``), as many per polygon as Blender has:
    the faces are Blender's whichever diagonal splits a quad."""
    tolerance = np.broadcast_to(np.asarray(tolerance, dtype=np.float64), (3,))
    assert len(found.triangles) == len(triangles), f"{what}: {len(found.triangles)} triangles, Blender has {len(triangles)}"
    index, distance = nearest(found.positions, positions)
    worst = int(np.argmax((distance / tolerance).max(axis=1)))
    assert np.all(distance <= tolerance), (
        f"{what}: vertex {worst} at {found.positions[worst]} is {distance[worst]} from the nearest Blender vertex "
        f"{positions[index[worst]]}, tolerance {tolerance}")
    back, back_distance = nearest(positions, found.positions)
    missing = np.flatnonzero(np.any(back_distance > tolerance, axis=1))
    assert not len(missing), f"{what}: Blender vertices {missing[:5].tolist()} have no loaded vertex near them"
    # identical Blender positions are one place
    _, place = np.unique(positions, axis=0, return_inverse=True)
    place = place.reshape(-1)
    corners: dict[int, set[int]] = {}
    capacity: dict[int, int] = {}
    for polygon, triangle in zip(polygon_of.tolist(), place[triangles].tolist()):
        corners.setdefault(polygon, set()).update(triangle)
        capacity[polygon] = capacity.get(polygon, 0) + 1
    by_triple: dict[tuple, list[int]] = {}
    for polygon, places in corners.items():
        for triple in combinations(sorted(places), 3):
            by_triple.setdefault(triple, []).append(polygon)
    strays = 0
    for triangle in np.sort(place[index][found.triangles], axis=1).tolist():
        polygon = next((p for p in by_triple.get(tuple(triangle), ()) if capacity[p] > 0), None)
        if polygon is None:
            strays += 1
        else:
            capacity[polygon] -= 1
    assert not strays, f"{what}: {strays} triangle(s) join corners of no Blender polygon (or too many of one)"
