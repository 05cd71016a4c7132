"""A Quake II player's skins beside the menu icons the player export renders for them: one picture.

    .venvs/bpy-5.2/bin/python tools/player_icons_sheet.py [PLAYER_FOLDER] [-o docs/player_icons.png]

Imports the player (default: the corpus player zarlag), gives the body its team skins beside its
own (every ``.pcx`` of the folder that is not an icon nor the weapon's skin, as alternate
materials), exports it as a Quake II player into ``players/<name>2/`` with *Icons: Render*, and
tiles what was written, decoded from the files: each skin (halved) with its 32x32 icon (four times
enlarged, transparent pixels dark grey) to its right, one row per skin in the order the MD2 lists
them. Prints the skins, the icons and how long the export took.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from importlib import import_module
from pathlib import Path

import numpy as np

CHECKOUT = Path(__file__).resolve().parents[1]
if str(CHECKOUT) not in sys.path:
    sys.path.insert(0, str(CHECKOUT))

from tools.load_extension import enable_extension  # noqa: E402

CORPUS = CHECKOUT.parent / "shared" / "corpus"
DEFAULT_PLAYER = CORPUS / "md2" / "petaaar88-zarlag"
DEFAULT_SHEET = CHECKOUT / "docs" / "player_icons.png"
ICON_ZOOM, GAP, BACKGROUND = 4, 8, 40


def picture(path: Path, transparent: bool) -> np.ndarray:
    """(h, w, 3) uint8 of a written PCX; index 255 dark grey where ``transparent``."""
    from formats.images.pcx import decode_pcx
    pcx = decode_pcx(path.read_bytes())
    rgb = pcx.rgba[..., :3].copy()
    if transparent:
        rgb[pcx.indices == 255] = BACKGROUND
    return rgb


def sheet(rows: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Each (skin, icon) as one row: the skin halved, a gap, the icon enlarged; rows apart by a gap."""
    skins = [skin[::2, ::2] for skin, _ in rows]
    icons = [icon.repeat(ICON_ZOOM, 0).repeat(ICON_ZOOM, 1) for _, icon in rows]
    width = max(s.shape[1] for s in skins) + GAP + max(i.shape[1] for i in icons)
    height = sum(max(s.shape[0], i.shape[0]) for s, i in zip(skins, icons)) + GAP * (len(rows) - 1)
    out = np.full((height, width, 3), 255, np.uint8)
    y = 0
    for skin, icon in zip(skins, icons):
        out[y:y + skin.shape[0], :skin.shape[1]] = skin
        x = width - icon.shape[1]
        out[y:y + icon.shape[0], x:] = icon
        y += max(skin.shape[0], icon.shape[0]) + GAP
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("player", nargs="?", type=Path, default=DEFAULT_PLAYER)
    parser.add_argument("-o", "--output", type=Path, default=DEFAULT_SHEET)
    args = parser.parse_args()
    if not (args.player / "tris.md2").is_file():
        print(f"no tris.md2 in {args.player}", file=sys.stderr)
        return 1
    module = enable_extension()
    import bpy

    from formats.images.palette import quake2_palette
    from formats.images.truecolour import encode_png
    from formats.md2.codec import parse_md2
    from tools.benchmark import reports_to_stderr
    skin_images = import_module(f"{module}.common.skin_images")
    bpy.ops.wm.read_homefile(use_empty=True)
    with reports_to_stderr():
        bpy.ops.import_scene.md2(filepath=str(args.player / "tris.md2"))
    body = bpy.context.view_layer.objects.active
    objects = [body] + list(body.children)
    images = [skin_images.material_image(m) for o in objects for m in o.data.materials]
    shown = {Path(str(i.get("source_path", ""))).name.lower() for i in images if i is not None}
    for path in sorted(args.player.iterdir(), key=lambda p: p.name.lower()):
        if path.suffix.lower() == ".pcx" and not path.stem.lower().endswith("_i") and path.name.lower() not in shown:
            image = skin_images.load_skin_image(path, quake2_palette())
            body.data.materials.append(skin_images.skin_material(path.stem, image))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "baseq2" / "players" / f"{args.player.name.split('-')[-1]}2"
        folder.mkdir(parents=True)
        for obj in bpy.context.view_layer.objects:
            obj.select_set(obj in objects)
        started = time.perf_counter()
        with reports_to_stderr():
            bpy.ops.export_scene.md2(filepath=str(folder / "tris.md2"), player=True, icons="RENDER",
                                     materials="ALTERNATE")
        seconds = time.perf_counter() - started
        rows = []
        for name in parse_md2((folder / "tris.md2").read_bytes()).skins:
            skin = folder / Path(name).name
            icon = folder / f"{skin.stem}_i.pcx"
            rows.append((picture(skin, False), picture(icon, True)))
            print(f"{name}: {skin.name} {rows[-1][0].shape[1]}x{rows[-1][0].shape[0]}, icon {icon.name} "
                  f"{rows[-1][1].shape[1]}x{rows[-1][1].shape[0]}")
    rgb = sheet(rows)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_bytes(encode_png(np.concatenate([rgb, np.full(rgb.shape[:2] + (1,), 255, np.uint8)], 2)))
    print(f"exported {len(rows)} skins with rendered icons in {seconds:.2f} s; sheet {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
