"""A Quake III player imported assembled, at frames of a few of its animations: one picture.

    .venvs/bpy-5.2/bin/python tools/md3_player_sheet.py [PLAYER_FOLDER] [-o docs/md3_player.png]

Imports ``lower.md3`` of the player folder (default: OpenArena's ``major`` in the corpus) with
*Assemble Player*, and renders (Workbench, textured) the first, middle and last frame of a death, two
legs and two torso animations of its ``animation.cfg`` (the scene frames of the parts' sidebar lists),
every surface of the three parts framed by one camera (tools/contact_sheet.py).
"""
from __future__ import annotations

import argparse
import sys
from importlib import import_module
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
if str(CHECKOUT) not in sys.path:
    sys.path.insert(0, str(CHECKOUT))

from tools.load_extension import enable_extension  # noqa: E402

CORPUS = CHECKOUT.parent / "shared" / "corpus"
DEFAULT_PLAYER = CORPUS / "md3" / "openarena081" / "models" / "players" / "major"
DEFAULT_SHEET = CHECKOUT / "docs" / "md3_player.png"
SHOWN = {"lower": ("BOTH_DEATH1", "LEGS_RUN", "LEGS_JUMP"), "upper": ("TORSO_GESTURE", "TORSO_ATTACK")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("player", nargs="?", type=Path, default=DEFAULT_PLAYER)
    parser.add_argument("-o", "--output", type=Path, default=DEFAULT_SHEET)
    args = parser.parse_args()
    enable_extension()
    import bpy
    sheet = import_module("tools.contact_sheet")
    bpy.ops.wm.read_homefile(use_empty=True)
    assert bpy.ops.import_scene.md3(filepath=str(args.player / "lower.md3")) == {"FINISHED"}
    roots = {o["md3_root"]: o for o in bpy.data.objects if "md3_root" in o}
    groups = []
    for part, names in SHOWN.items():
        for item in roots[part].classic_model.animations:
            if item.name in names:
                groups.append(list(dict.fromkeys((item.frame_start, (item.frame_start + item.frame_end) // 2,
                                                  item.frame_end))))
    meshes = [o for o in bpy.data.objects if o.type == "MESH"]
    done = sheet.render_contact_sheet(bpy.context, roots["lower"], args.output, tile_size=192, groups=groups,
                                      framed=meshes, view_direction=(1.0, 0.5, 0.25))
    print(f"wrote {args.output}: {len(done)} animations, frames {done}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
