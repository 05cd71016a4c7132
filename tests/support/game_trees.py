"""A Quake II game folder's files for the Game Archive tests: players with skins, icons and weapon models,
items, a Quake model and a MilkShape model with its texture in a sub-folder; small random PCX and PNG
skins; and the import operator of each model extension."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from formats.mdl.codec import serialize_mdl

from .image_files import write_pcx, write_png
from .md2_synthetic import grid_model
from .mdl_models import mixed_model
from .models import md2_bytes, textured_rig

OPERATORS = {".md2": "md2", ".mdl": "mdl", ".ms3d": "ms3d"}


def pcx_bytes(tmp_path: Path, h: int, w: int, seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    palette = rng.integers(0, 256, (256, 3)).astype(np.uint8)
    return write_pcx(tmp_path / f"skin{seed}.pcx", rng.integers(0, 255, (h, w)).astype(np.uint8), palette).read_bytes()


def png_bytes(tmp_path: Path, h: int, w: int, seed: int) -> bytes:
    rgba = np.random.default_rng(seed).integers(0, 256, (h, w, 4)).astype(np.uint8)
    rgba[..., 3] = 255
    return write_png(tmp_path / f"image{seed}.png", rgba).read_bytes()


def quake2_tree(tmp_path: Path) -> dict[str, bytes]:
    """A Quake II game folder's files: players with skins, icons and weapon models, items, a Quake
    model and a MilkShape model with its texture in a sub-folder."""
    w, h = grid_model().skin_width, grid_model().skin_height
    return {
        "players/male/tris.md2": md2_bytes(["players/male/grunt.pcx"]),
        "players/male/grunt.pcx": pcx_bytes(tmp_path, h, w, 1),
        "players/male/grunt_i.pcx": pcx_bytes(tmp_path, 4, 4, 2),
        "players/male/weapon.md2": md2_bytes(["players/male/weapon.pcx"], seed=2),
        "players/male/weapon.pcx": pcx_bytes(tmp_path, h, w, 3),
        "players/male/w_railgun.md2": md2_bytes([], seed=3),
        "players/female/tris.md2": md2_bytes([], seed=4),
        "players/female/athena.pcx": pcx_bytes(tmp_path, h, w, 4),
        "players/female/athena_i.pcx": pcx_bytes(tmp_path, 4, 4, 5),
        "players/female/venus.pcx": pcx_bytes(tmp_path, h, w, 6),
        "players/female/venus_i.pcx": pcx_bytes(tmp_path, 4, 4, 7),
        "models/items/box/tris.md2": md2_bytes(["Models/Items/Box/Skin.PCX"], seed=5),
        "models/items/box/skin.pcx": pcx_bytes(tmp_path, h, w, 8),
        "models/items/crate/tris.md2": md2_bytes(["models/items/crate/crate.tga"], seed=6),
        "models/items/crate/crate.png": png_bytes(tmp_path, h, w, 9),
        "progs/ogre.mdl": serialize_mdl(mixed_model()),
        "models/thing/thing.ms3d": textured_rig(),
        "models/thing/textures/paint.png": png_bytes(tmp_path, 8, 8, 10),
        "sound/misc/beep.wav": b"RIFF....",
    }
