"""Edited MD3 and MD5 export cases for ``tools/benchmark.py`` (beside stepping the timeline).

* MD3: the corpus MD3 with the most vertices x frames (a model root with a mesh per surface, shape-key
  frames), and the one with the most surfaces x frames (Nexuiz's turret ``walker_body.md3``: 14 surfaces,
  156 frames).
* MD5: the corpus's rigged ``actors/drone/mesh.md5mesh`` (27 joints, 2 meshes) with every anim of its
  folder (*Anims: Folder*; the first plays on the timeline).

Each is imported as a user would, scaled by 1.1 so no frame equals an imported one (the MD3's surface
objects: its model root's empty is the space the file's coordinates are in, so scaling it moves nothing in
the file; the MD5's armature), and exported with *Frames: Timeline* over the scene range the import
left (the MD5 at *Frame Rate: Game*: its default since issue 44 writes each anim to its own file). "Naive" steps the same range with ``scene.frame_set`` and reads every mesh's evaluated vertices
(``to_mesh``), and for the MD5 every pose bone's matrix: what an exporter that evaluates each frame
reads at least.

Loaded by file path (``tools/benchmark.py``'s second process puts the previous checkout first on
``sys.path``), so it imports nothing from ``tools``.
"""
from __future__ import annotations

import gc
import time
from pathlib import Path

MD5_CASE = "redeclipse/data/actors/drone/mesh.md5mesh"
OUTPUT = {"md3": "md3", "md5": "md5mesh"}


def cpu(fn) -> tuple[float, float]:
    """(wall, CPU) seconds of one call."""
    gc.collect()
    start, clock = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - start, time.process_time() - clock


def rigged_cases(corpus: Path, fmt: str) -> tuple[list[tuple[str, Path, int, int, int]], list[str]]:
    """``[(name, path, vertices, triangles, frames)]`` for ``fmt`` and notes on what was skipped."""
    folder = corpus / fmt
    if not folder.is_dir():
        return [], [f"corpus not found at {folder}: {fmt} edited case skipped"]
    if fmt == "md5":
        path = folder / MD5_CASE
        if not path.is_file():
            return [], [f"{MD5_CASE} not found in {folder}: md5 edited case skipped"]
        from formats.md5.mesh import read_md5mesh
        mesh = read_md5mesh(path.read_bytes())
        vertices = sum(len(part.uv) for part in mesh.meshes)
        triangles = sum(len(part.triangles) for part in mesh.meshes)
        anims = sorted(path.parent.glob("*.md5anim"))
        frames = sum(int(a.read_text(encoding="latin-1").split("numFrames", 1)[1].split()[0]) for a in anims)
        return [(f"{path.parent.name}/{path.name} ({len(anims)} anims)", path, vertices, triangles, frames)], []
    from formats.errors import FormatError
    from formats.md3.codec import read_md3
    best, most = None, None          # (vertices x frames, case), (surfaces x frames, case, surfaces)
    for path in sorted(folder.rglob("*.md3")):
        try:
            model = read_md3(path.read_bytes())
        except (FormatError, OSError):
            continue
        vertices = sum(s.xyz.shape[1] for s in model.surfaces)
        triangles = sum(len(s.triangles) for s in model.surfaces)
        frames, count = len(model.frame_names), len(model.surfaces)
        case = (f"{path.parent.name}/{path.name}", path, vertices, triangles, frames)
        if best is None or vertices * frames > best[0]:
            best = (vertices * frames, case)
        if most is None or count * frames > most[0]:
            most = (count * frames, case, count)
    if best is None:
        return [], [f"no MD3 in {folder} parses: md3 edited case skipped"]
    if most[1][1] == best[1][1]:
        return [best[1]], []
    name, *rest = most[1]
    return [best[1], (f"{name} ({most[2]} surfaces)", *rest)], []


def load(bpy, fmt: str, path: Path) -> list:
    """Import the case into an empty scene; its root objects."""
    bpy.ops.wm.read_homefile(use_empty=True)
    if fmt == "md5":
        bpy.ops.import_scene.md5(filepath=str(path), find_anims="FOLDER")
    else:
        bpy.ops.import_scene.md3(filepath=str(path))
    return [o for o in bpy.context.scene.objects if o.parent is None]


def naive(bpy) -> tuple[float, float]:
    """(wall, CPU) seconds to step the scene range and read every mesh (and pose) on every frame."""
    import numpy as np
    scene = bpy.context.scene
    meshes = [o for o in scene.objects if o.type == "MESH"]
    rigs = [o for o in scene.objects if o.type == "ARMATURE"]

    def read() -> None:
        for frame in range(scene.frame_start, scene.frame_end + 1):
            scene.frame_set(frame)
            depsgraph = bpy.context.evaluated_depsgraph_get()
            for obj in meshes:
                obj_eval = obj.evaluated_get(depsgraph)
                mesh = obj_eval.to_mesh()
                mesh.vertices.foreach_get("co", np.empty(len(mesh.vertices) * 3, np.float32))
                obj_eval.to_mesh_clear()
            for rig in rigs:
                rig.pose.bones.foreach_get("matrix", np.empty(len(rig.pose.bones) * 16, np.float32))

    seconds = cpu(read)
    scene.frame_set(scene.frame_start)
    return seconds


def edited(bpy, fmt: str, roots: list, out_dir: Path) -> tuple[float, float]:
    """Scale the MD3's surfaces (the MD5's armature) by 1.1 and export: (wall, CPU) seconds."""
    moved = [o for o in bpy.context.scene.objects if o.type == "MESH"] if fmt == "md3" else roots
    for obj in moved:
        obj.scale = (1.1, 1.1, 1.1)
    out = out_dir / f"edited_out.{OUTPUT[fmt]}"
    rate = {"frame_rate": "GAME"} if fmt == "md5" else {}     # the scene range at 10 a second, as recorded
    return cpu(lambda: getattr(bpy.ops.export_scene, fmt)(filepath=str(out), frame_source="TIMELINE", **rate))


def run(bpy, fmt: str, path: Path, repeat: int, out_dir: Path, with_naive: bool = True) -> dict[str, float]:
    """Best of ``repeat``: ``naive_export_s`` and ``naive_cpu_s`` (if ``with_naive``), ``edited_export_s``,
    ``edited_cpu_s``."""
    best = {"naive_export_s": float("inf"), "naive_cpu_s": float("inf"), "edited_export_s": float("inf"),
            "edited_cpu_s": float("inf")}
    for _ in range(repeat):
        roots = load(bpy, fmt, path)
        if with_naive:
            wall, seconds = naive(bpy)
            best["naive_export_s"], best["naive_cpu_s"] = min(best["naive_export_s"], wall), min(best["naive_cpu_s"], seconds)
        wall, seconds = edited(bpy, fmt, roots, out_dir)
        best["edited_export_s"] = min(best["edited_export_s"], wall)
        best["edited_cpu_s"] = min(best["edited_cpu_s"], seconds)
    bpy.ops.wm.read_homefile(use_empty=True)
    return best
