"""A model with four materials, as Blender shows it, as the exported MD2 shows it, and its packed skin.

    .venvs/bpy-5.2/bin/python tools/packed_skin_sheet.py [-o docs/packed_skin.png]

Builds a cube whose faces use four materials with images of four sizes (checkers and stripes in
four colours), exports it as MD2 with the default *Materials: One Skin* and *Skins: PCX*, imports
the file back, and writes one picture of three tiles: the model in Blender, the imported MD2 (one
skin on every face, as the game draws it) and the written PCX skin itself (scaled up, nearest
texel). Prints the export's report lines.
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

DEFAULT_SHEET = CHECKOUT / "docs" / "packed_skin.png"
TILE = 256
PAINTS = [  # (name, width, height, colour a, colour b, pattern)
    ("brick", 64, 64, (176, 48, 32), (232, 200, 160), "checker"),
    ("steel", 32, 32, (40, 72, 160), (200, 210, 230), "stripes"),
    ("moss", 48, 16, (40, 140, 48), (16, 56, 24), "checker"),
    ("gold", 16, 16, (240, 200, 40), (120, 80, 16), "stripes"),
]


def paint(width: int, height: int, a, b, pattern: str) -> np.ndarray:
    """(h, w, 4) uint8, top row first: 8-texel checkers or 4-texel diagonal stripes."""
    y, x = np.mgrid[0:height, 0:width]
    pick = ((x // 8 + y // 8) % 2 == 0) if pattern == "checker" else (((x + y) // 4) % 2 == 0)
    rgba = np.where(pick[..., None], np.array(a + (255,)), np.array(b + (255,))).astype(np.uint8)
    rgba[0, :], rgba[-1, :], rgba[:, 0], rgba[:, -1] = 255, 255, 255, 255     # a white frame round each image
    return rgba


def build_model(bpy):
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.ops.mesh.primitive_cube_add(size=24.0)
    obj = bpy.context.active_object
    obj.name = "crate"
    bpy.context.scene.frame_end = bpy.context.scene.frame_start     # one frame: a still model
    for name, width, height, a, b, pattern in PAINTS:
        rgba = paint(width, height, a, b, pattern)
        image = bpy.data.images.new(name, width, height, alpha=True)
        image.pixels.foreach_set((rgba[::-1].astype(np.float32) / 255).ravel())
        material = bpy.data.materials.new(name)
        if bpy.app.version < (5, 0, 0):
            material.use_nodes = True
        node = material.node_tree.nodes.new("ShaderNodeTexImage")
        node.image, node.interpolation = image, "Closest"
        bsdf = material.node_tree.nodes.get("Principled BSDF")
        material.node_tree.links.new(node.outputs["Color"], bsdf.inputs["Base Color"])
        material.node_tree.nodes.active = node
        obj.data.materials.append(material)
    square = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    uv = obj.data.uv_layers.active.uv
    for poly in obj.data.polygons:
        poly.material_index = poly.index % len(PAINTS)
        for corner, loop in enumerate(poly.loop_indices):
            uv[loop].vector = square[corner]
    return obj


def render_tile(bpy, obj, tmp: Path) -> np.ndarray:
    from tools.contact_sheet import read_png, render_contact_sheet
    path = tmp / f"{obj.name}.png"
    render_contact_sheet(bpy.context, obj, path, tile_size=TILE, groups=[[bpy.context.scene.frame_start]])
    return read_png(path)[::-1, :TILE, :3]


def skin_tile(rgb: np.ndarray) -> np.ndarray:
    """The skin scaled up by a whole factor (nearest texel), centred on a grey tile."""
    h, w = rgb.shape[:2]
    factor = max(1, min(TILE // w, TILE // h))
    big = np.repeat(np.repeat(rgb, factor, axis=0), factor, axis=1)[:TILE, :TILE]
    tile = np.full((TILE, TILE, 3), 0.35, np.float32)
    y, x = (TILE - big.shape[0]) // 2, (TILE - big.shape[1]) // 2
    tile[y:y + big.shape[0], x:x + big.shape[1]] = big / 255.0
    return tile


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", type=Path, default=DEFAULT_SHEET)
    args = parser.parse_args()
    enable_extension()
    import bpy

    from formats.images.palette import quake2_palette
    from formats.images.pcx import decode_pcx
    from formats.images.truecolour import encode_png
    from formats.md2.codec import parse_md2
    from tools.benchmark import reports_to_stderr
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        obj = build_model(bpy)
        blender = render_tile(bpy, obj, tmp)
        out = tmp / "baseq2" / "models" / "crate" / "tris.md2"
        out.parent.mkdir(parents=True)
        obj.select_set(True)
        with reports_to_stderr():
            bpy.ops.export_scene.md2(filepath=str(out))
        model = parse_md2(out.read_bytes())
        skin = decode_pcx((out.parent / Path(model.skins[0]).name).read_bytes())
        bpy.ops.wm.read_homefile(use_empty=True)
        with reports_to_stderr():
            bpy.ops.import_scene.md2(filepath=str(out))
        game = render_tile(bpy, bpy.context.view_layer.objects.active, tmp)
        rgb = quake2_palette()[skin.indices]                # as the game draws the 8-bit skin
        sheet = np.concatenate([blender, game, skin_tile(rgb)], axis=1)
        rgba = np.concatenate([np.clip(np.rint(sheet * 255), 0, 255).astype(np.uint8),
                               np.full(sheet.shape[:2] + (1,), 255, np.uint8)], axis=2)
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_bytes(encode_png(rgba))
    print(f"skin {model.skins[0]}: {model.skin_width}x{model.skin_height}; images "
          + ", ".join(f"{name} {w}x{h}" for name, w, h, *_ in PAINTS))
    print(f"sheet: {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
