"""A corpus MilkShape 3D model as a new user imports it, as one picture for the manual's MS3D page.

    .venvs/bpy-5.2/bin/python tools/ms3d_sheet.py [FILE] [-o docs/ms3d_zombie.png]

Imports the MS3D (default: the corpus's ``ms3d/sge/zombie.ms3d``, a rigged and animated model with its
skin beside it) with the default options and renders frames across its animation into one row of tiles
(Workbench, texture colours; :func:`tools.contact_sheet.render_contact_sheet`).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
if str(CHECKOUT) not in sys.path:
    sys.path.insert(0, str(CHECKOUT))

DEFAULT_MODEL = CHECKOUT.parent / "shared" / "corpus" / "ms3d" / "sge" / "zombie.ms3d"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", nargs="?", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("-o", "--output", type=Path, default=CHECKOUT / "docs" / "ms3d_zombie.png")
    args = parser.parse_args(argv)
    if not args.model.is_file():
        print(f"error: {args.model} is not there (the corpus: bash tools/dev.sh corpus)", file=sys.stderr)
        return 1
    from tools.load_extension import enable_extension
    enable_extension()
    import bpy

    from tools.contact_sheet import render_contact_sheet
    context = bpy.context
    bpy.ops.wm.read_homefile(use_empty=True)
    assert bpy.ops.import_scene.ms3d(filepath=str(args.model)) == {"FINISHED"}
    meshes = [o for o in context.view_layer.objects if o.type == "MESH"]
    scene = context.scene
    frames = [round(scene.frame_start + k * (scene.frame_end - scene.frame_start) / 11) for k in range(12)]
    frames = [f for f in frames if f < 70 or f > 110][:8]      # zombie.ms3d lies on the ground between
    render_contact_sheet(context, meshes[0], args.output, tile_size=150, groups=[frames[:4], frames[4:]],
                         framed=meshes)
    print(f"{args.output}: {args.model.name}, frames {frames} of {scene.frame_start}-{scene.frame_end}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
