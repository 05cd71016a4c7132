"""Corpus MD2 models as a new user imports them: which skin each shows and why, and one picture.

    .venvs/bpy-5.0/bin/python tools/skins_sheet.py [FILES...] [--markdown] [-o docs/skins_contact.png]

Imports each MD2 (default: every file of ``../shared/corpus/md2``) with the default options, prints
a table (file, image shown, the import's reason) and renders the first frame of every model that
imports textured into one row of tiles (Workbench, texture colours), left to right in table order.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

CHECKOUT = Path(__file__).resolve().parents[1]
if str(CHECKOUT) not in sys.path:
    sys.path.insert(0, str(CHECKOUT))

from tools.load_extension import enable_extension  # noqa: E402

CORPUS = CHECKOUT.parent / "shared" / "corpus"
DEFAULT_SHEET = CHECKOUT / "docs" / "skins_contact.png"
TILE = 160


def shown_image(obj):
    """The image of the material on the model's first face, or None."""
    if not obj.data.polygons or not obj.data.materials:
        return None
    material = obj.data.materials[obj.data.polygons[0].material_index]
    if material is None or material.node_tree is None:
        return None
    return next((n.image for n in material.node_tree.nodes if n.type == "TEX_IMAGE" and n.image), None)


def import_one(bpy, path: Path) -> tuple[object | None, str, str]:
    """(object or None, image name, the import's skin report line) for ``path``."""
    from formats.archives.skin_lookup import find_own_skins, find_sized_skin
    from tools.benchmark import reports_to_stderr
    bpy.ops.wm.read_homefile(use_empty=True)
    try:
        with reports_to_stderr():
            bpy.ops.import_scene.md2(filepath=str(path), load_weapons=False)   # one tile per file
    except RuntimeError as exc:
        return None, "", "refused: " + str(exc).splitlines()[0].removeprefix("Error: ").removeprefix(f"{path}: ")
    obj = bpy.context.view_layer.objects.active
    image = shown_image(obj)
    if image is None:
        return obj, "", "untextured"
    named = [m.get("md2_skin") for m in obj.data.materials if m and m.get("md2_skin")]
    source = Path(str(image.get("source_path", image.name))).name
    if named and source.lower() == named[0].replace("\\", "/").split("/")[-1].lower():
        return obj, source, "the name the file stores"
    settings = obj.classic_model
    own = find_own_skins(path) or find_sized_skin(path, settings.skin_width, settings.skin_height)
    return obj, source, own.reason.split(" (", 1)[-1].rstrip(")") if own else "?"


def tile_of(bpy, obj, tmp: Path) -> np.ndarray:
    """(TILE, TILE, 3) floats, top row first: the model's first frame rendered with its texture."""
    from tools.contact_sheet import read_png, render_contact_sheet
    scene = bpy.context.scene
    path = tmp / f"{obj.name}.png"
    render_contact_sheet(bpy.context, obj, path, tile_size=TILE, groups=[[scene.frame_start]])
    return read_png(path)[::-1, :TILE, :3]


def write_row(tiles: list[np.ndarray], output: Path) -> None:
    """The tiles side by side as one opaque PNG at ``output``."""
    from formats.images.truecolour import encode_png
    sheet = np.concatenate(tiles, axis=1)
    rgba = np.concatenate([np.clip(np.rint(sheet * 255), 0, 255).astype(np.uint8),
                           np.full(sheet.shape[:2] + (1,), 255, np.uint8)], axis=2)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_bytes(encode_png(rgba))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("-o", "--output", type=Path, default=DEFAULT_SHEET)
    args = parser.parse_args()
    files = args.files or sorted((CORPUS / "md2").glob("*/*.md2"))
    if not files:
        print(f"no files given and no MD2 corpus at {CORPUS}", file=sys.stderr)
        return 1
    enable_extension()
    import bpy
    rows, tiles = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            obj, image, why = import_one(bpy, path)
            rows.append((f"{path.parent.name}/{path.name}", image, why))
            if obj is not None and image:
                tiles.append(tile_of(bpy, obj, Path(tmp)))
    textured = sum(1 for _, image, _ in rows if image)
    readable = sum(1 for _, _, why in rows if not why.startswith("refused"))
    if tiles:
        write_row(tiles, args.output)
    if args.markdown:
        print("| file | skin shown | found by |")
        print("|---|---|---|")
        for name, image, why in rows:
            print(f"| {name} | {image or '-'} | {why} |")
        print(f"\n{textured} of {readable} readable files import textured; sheet: {args.output.name} "
              f"({len(tiles)} tiles, left to right in table order)")
    else:
        for name, image, why in rows:
            print(f"{name}: {image or '-'} ({why})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
