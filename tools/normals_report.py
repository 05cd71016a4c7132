"""Lighting normals and facing of models made in Blender, as written to MD2, MDL and MS3D.

Run with a Python that has the ``bpy`` wheel::

    .venvs/bpy-4.2/bin/python tools/normals_report.py [--markdown]

Suzanne (``primitive_monkey_add``, smooth-shaded, its UVs with seams) is exported as MD2 and MDL
and the files decoded: for each written vertex (MDL: each copy split at a UV seam too), the angle
between its anorm and Blender's vertex normal (``mesh.vertex_normals`` of the evaluated mesh) is
compared with the angle to the anorm nearest Blender's normal. "off" counts vertices whose written
anorm is more than 1 degree farther from Blender's normal than the nearest one; "worst" is the
largest angle between a written anorm and Blender's normal. A mirrored Suzanne (scale -1 on x) is
exported to all three formats and each triangle's front (clockwise for MD2/MDL, counter-clockwise
for MS3D) compared with Blender's polygon normal in world space.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

CHECKOUT = Path(__file__).resolve().parents[1]
MS3D_TO_BLENDER = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def _read(collection, attr: str, width: int, dtype=np.float32) -> np.ndarray:
    flat = np.empty(len(collection) * width, dtype=dtype)
    collection.foreach_get(attr, flat)
    return flat.reshape(-1, width) if width > 1 else flat


def _truth(bpy, obj) -> dict:
    """World-space positions, vertex and polygon normals and loop triangles of the evaluated mesh."""
    bpy.context.view_layer.update()
    obj_eval = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    mesh = obj_eval.to_mesh()
    try:
        mesh.calc_loop_triangles()
        matrix = np.array(obj.matrix_world, dtype=np.float64)
        normal_matrix = np.linalg.inv(matrix[:3, :3]).T
        return {"co": _read(mesh.vertices, "co", 3) @ matrix[:3, :3].T + matrix[:3, 3],
                "vertex": _unit(_read(mesh.vertex_normals, "vector", 3) @ normal_matrix.T),
                "polygon": _unit(_read(mesh.polygon_normals, "vector", 3) @ normal_matrix.T),
                "tris": _read(mesh.loop_triangles, "vertices", 3, np.int32),
                "tri_polygon": _read(mesh.loop_triangles, "polygon_index", 1, np.int32)}
    finally:
        obj_eval.to_mesh_clear()


def _corner_vertices(decoded: np.ndarray, truth: dict) -> np.ndarray:
    """(T, 3) the Blender vertex of each file corner (file triangle i is loop triangle i)."""
    tris = truth["tris"]
    near = np.linalg.norm(decoded[:, :, None, :] - truth["co"][tris][:, None, :, :], axis=-1)
    return np.take_along_axis(tris, np.argmin(near, axis=2), axis=1)


def _decode(kind: str, path: Path):
    from formats.md2.codec import parse_md2
    from formats.mdl.codec import parse_mdl
    if kind == "MD2":
        m = parse_md2(path.read_bytes())
        positions = m.frame_verts[0] * m.frame_scale[0].astype(np.float64) + m.frame_translate[0]
        return positions, m.tri_xyz.astype(np.int64), m.frame_normals[0]
    m = parse_mdl(path.read_bytes())
    return m.pose_verts[0] * m.scale.astype(np.float64) + m.translate, m.triangles.astype(np.int64), m.pose_normals[0]


def _export(bpy, kind: str, obj, path: Path) -> None:
    for other in bpy.context.view_layer.objects:
        other.select_set(other == obj)
    if kind == "MD2":
        bpy.ops.export_scene.md2(filepath=str(path), skins="NAMES")
    elif kind == "MDL":
        bpy.ops.export_scene.mdl(filepath=str(path))
    else:
        bpy.ops.export_scene.ms3d(filepath=str(path), textures="NAMES")


def lighting_rows(bpy, folder: Path) -> list[tuple]:
    from formats.anorms import anorms
    table = anorms().astype(np.float64)
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.context.scene.frame_start = bpy.context.scene.frame_end = 1
    bpy.ops.mesh.primitive_monkey_add()
    obj = bpy.context.active_object
    bpy.ops.object.shade_smooth()
    truth = _truth(bpy, obj)
    rows = []
    for kind in ("MD2", "MDL"):
        path = folder / f"suzanne.{kind.lower()}"
        _export(bpy, kind, obj, path)
        positions, triangles, normals = _decode(kind, path)
        vertex_of = np.full(len(positions), -1)
        vertex_of[triangles.ravel()] = _corner_vertices(positions[triangles], truth).ravel()
        used = vertex_of >= 0
        blender = truth["vertex"][vertex_of[used]]
        written = np.degrees(np.arccos(np.clip(np.einsum("ij,ij->i", table[normals[used]], blender), -1, 1)))
        best = np.degrees(np.arccos(np.clip((blender @ table.T).max(axis=1), -1, 1)))
        rows.append((kind, int(used.sum()), int(np.sum(written - best > 1.0)), float(written.max())))
    return rows


def facing_rows(bpy, folder: Path) -> list[tuple]:
    from formats.ms3d.codec import parse_ms3d
    rows = []
    for label, scale in (("unmirrored", (1, 1, 1)), ("mirrored on x", (-1, 1, 1))):
        bpy.ops.wm.read_homefile(use_empty=True)
        bpy.context.scene.frame_start = bpy.context.scene.frame_end = 1
        bpy.ops.mesh.primitive_monkey_add()
        obj = bpy.context.active_object
        obj.scale = scale
        truth = _truth(bpy, obj)
        polygon = truth["polygon"][truth["tri_polygon"]]
        for kind in ("MD2", "MDL", "MS3D"):
            path = folder / f"facing.{kind.lower()}"
            _export(bpy, kind, obj, path)
            if kind == "MS3D":
                model = parse_ms3d(path.read_bytes())
                p = (model.vert_xyz.astype(np.float64) @ MS3D_TO_BLENDER.T)[model.tri_vertices.astype(np.int64)]
                front = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
            else:
                positions, triangles, _ = _decode(kind, path)
                p = positions[triangles]
                front = np.cross(p[:, 2] - p[:, 0], p[:, 1] - p[:, 0])
            facing = np.einsum("ij,ij->i", front, polygon) > 0
            rows.append((label, kind, int(facing.sum()), len(facing)))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    parser.add_argument("--json", type=Path, help="also write the table as a record for tools/figures.py")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(CHECKOUT))
    from tools.load_extension import enable_extension
    enable_extension()
    import bpy
    with tempfile.TemporaryDirectory() as tmp:
        lighting = lighting_rows(bpy, Path(tmp))
        facing = facing_rows(bpy, Path(tmp))
    if args.markdown:
        print("| format | vertices written | off by more than 1 degree | worst angle to Blender's normal |")
        print("|---|---:|---:|---:|")
        for kind, count, off, worst in lighting:
            print(f"| {kind} | {count} | {off} | {worst:.1f} degrees |")
        print()
        print("| Suzanne | format | triangles facing as in Blender |")
        print("|---|---|---:|")
        for label, kind, good, total in facing:
            print(f"| {label} | {kind} | {good} of {total} |")
    else:
        for kind, count, off, worst in lighting:
            print(f"{kind}: {count} vertices, {off} off by more than 1 degree, worst {worst:.1f} degrees")
        for label, kind, good, total in facing:
            print(f"{label} {kind}: {good} of {total} triangles facing as in Blender")
    if args.json:
        from tools.figures import write_record
        write_record(args.json, script="tools/normals_report.py", command="python tools/normals_report.py --markdown",
                     environment=f"bpy {bpy.app.version_string}",
                     headers=["format", "vertices written", "off by more than 1 degree", "worst angle"],
                     rows=[[kind, count, off, f"{worst:.1f} degrees"] for kind, count, off, worst in lighting],
                     notes=[f"{label} {kind}: {good} of {total} triangles facing as in Blender"
                            for label, kind, good, total in facing])
    return 0


if __name__ == "__main__":
    sys.exit(main())
