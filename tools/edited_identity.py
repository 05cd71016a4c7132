"""Export the speed benchmark's models with one checkout's code, for a byte-for-byte comparison with another's.

    .venvs/bpy-5.2/bin/python tools/edited_identity.py --checkout CHECKOUT --out DIR MODEL...

Each MODEL (an .md2, .mdl or .md3 file) is imported and exported four times with *Frames: Timeline*:
untouched, its root scaled by 1.1 (the benchmark's edit), squashed (0.9, 1.2, 0.7), and scaled with a few
skin pixels repainted and a band of the skin painted white (MDL: new colours and masked pixels far from the
fullbright colours); an MD3, whose surfaces are children of its root (so scaling the root leaves them where
they were in the model), a fifth time with its first surface's mesh object moved and scaled and a sixth with
every surface's mesh object scaled by 1.1 (the benchmark's MD3 edit: every surface gets new normals). The files land
in DIR as ``<folder>_<stem>_<edit>.<ext>``; the operator's reports are printed, one per line. ``tests/export/test_edited_export_files_identity.py`` runs it on the previous code and on
this checkout and compares the two folders and reports.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

EDITS = {"untouched": None, "scaled": (1.1, 1.1, 1.1), "squashed": (0.9, 1.2, 0.7), "painted": (1.1, 1.1, 1.1),
         "surface": None, "surfaces": None}


def repaint(bpy, obj) -> None:
    """A few pixels of the first skin image turned green and a band near its end white."""
    import numpy as np
    material = obj.active_material
    nodes = material.node_tree.nodes if material is not None and material.node_tree else []
    images = [n.image for n in nodes if n.type == "TEX_IMAGE" and n.image is not None]
    if not images or len(images[0].pixels) < 4096:
        return
    image = images[0]
    pixels = np.empty(len(image.pixels), np.float32)
    image.pixels.foreach_get(pixels)
    pixels[:64] = [0.3, 0.9, 0.1, 1.0] * 16
    pixels[-400:-200] = 1.0
    image.pixels.foreach_set(pixels)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("models", type=Path, nargs="+")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(args.checkout.resolve()))
    from tools.load_extension import enable_extension
    enable_extension()
    import bpy
    args.out.mkdir(parents=True, exist_ok=True)
    for path in args.models:
        fmt = path.suffix.lower().lstrip(".")
        for edit, scale in EDITS.items():
            if edit in ("surface", "surfaces") and fmt != "md3":
                continue
            bpy.ops.wm.read_homefile(use_empty=True)
            getattr(bpy.ops.import_scene, fmt)(filepath=str(path))
            roots = [o for o in bpy.context.scene.objects if o.parent is None]
            for root in roots if scale is not None else ():
                root.scale = scale
            if edit == "painted":
                repaint(bpy, next(o for o in bpy.context.scene.objects if o.type == "MESH"))
            if edit == "surface":
                mesh = next(o for o in sorted(bpy.context.scene.objects, key=lambda o: o.name) if o.type == "MESH")
                mesh.location.x += 3.0
                mesh.scale = (1.1, 0.9, 1.0)
            if edit == "surfaces":                 # every surface's mesh object scaled (the benchmark's MD3 edit)
                for mesh in (o for o in bpy.context.scene.objects if o.type == "MESH"):
                    mesh.scale = (1.1, 1.1, 1.1)
            target = args.out / f"{path.parent.name}_{path.stem}_{edit}.{fmt}"
            print(f"== {target.name}", flush=True)
            getattr(bpy.ops.export_scene, fmt)(filepath=str(target), frame_source="TIMELINE")
    sys.stdout.flush()
    from tools.benchmark import exit_without_teardown
    exit_without_teardown(0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
