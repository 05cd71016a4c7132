"""A Red Eclipse player imported from IQM with its anims, as one picture for the manual's IQM page.

    .venvs/bpy-5.2/bin/python tools/iqm_sheet.py [-o docs/iqm_sheet.png]

Red Eclipse keeps its player's mesh and skeleton in ``RE_Player_male.iqm`` (no anims) and each animation in
a file of anims alone (poses and frames, no joints), attached by pose index as ``player.cfg``'s ``iqmanim``
lines say, at the rate they give. This script does the same with the codec: it decodes each anim's frames
(``formats/iqm/animation.py``), checks that its poses have the player's joints' parents, quantises them into one
file with the mesh (``encode_channels``) and writes it to a temporary folder. It imports that file with the
default options (one action per anim) and renders the first, middle and last frame of each anim into one
contact sheet (Workbench; :func:`tools.contact_sheet.render_contact_sheet`).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np

CHECKOUT = Path(__file__).resolve().parents[1]
if str(CHECKOUT) not in sys.path:
    sys.path.insert(0, str(CHECKOUT))

from formats.iqm.animation import encode_channels, frame_channels  # noqa: E402
from formats.iqm.codec import read_iqm  # noqa: E402
from formats.iqm.records import ANIM, LOOP  # noqa: E402
from formats.iqm.write import write_iqm  # noqa: E402

CORPUS = CHECKOUT.parent / "shared" / "corpus"
PLAYER = CORPUS / "iqm" / "redeclipse" / "data" / "actors" / "player" / "male" / "RE_Player_male.iqm"
ANIMS = CORPUS / "md5" / "redeclipse" / "data" / "actors" / "player"
# (anim name, file, frames per second): player.cfg's iqmanim lines
SHOWN = (("idle", "idle.iqm", 10), ("forward", "walk_forward.iqm", 30), ("impulse forward", "runcycle0.iqm", 40),
         ("jump", "jump0_up.iqm", 50), ("crawl forward", "crouch_forward.iqm", 30), ("dying", "dying.iqm", 21))
TILE = 160


def assembled(player: Path, folder: Path) -> bytes:
    """The player's mesh and joints with the :data:`SHOWN` anims, one after another, as one IQM file."""
    model = read_iqm(player.read_bytes())
    parents = model.joints["parent"]
    channels, records, text = [], [], bytearray(model.text)
    first = 0
    for name, file, fps in SHOWN:
        anim = read_iqm((folder / file).read_bytes())
        if not np.array_equal(anim.poses["parent"], parents):
            raise SystemExit(f"error: {folder / file}: its poses do not have {player.name}'s joint parents")
        values = frame_channels(anim)
        record = np.zeros(1, ANIM)
        record["name"], record["first_frame"], record["num_frames"] = len(text), first, len(values)
        record["framerate"], record["flags"] = fps, 0 if name == "dying" else LOOP
        text += name.encode() + b"\0"
        channels.append(values)
        records.append(record)
        first += len(values)
    poses, frames = encode_channels(np.concatenate(channels))
    poses["parent"] = parents
    return write_iqm(replace(model, text=bytes(text), poses=poses, frames=frames, anims=np.concatenate(records),
                             bounds=None, layout=None))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", type=Path, default=CHECKOUT / "docs" / "iqm_sheet.png")
    args = parser.parse_args(argv)
    missing = [p for p in (PLAYER, *(ANIMS / f for _, f, _ in SHOWN)) if not p.is_file()]
    if missing:
        print(f"error: {missing[0]} is not there (the corpus: bash tools/dev.sh corpus)", file=sys.stderr)
        return 1
    from tools.load_extension import enable_extension
    enable_extension()
    import bpy

    from tools.contact_sheet import render_contact_sheet
    bpy.ops.wm.read_homefile(use_empty=True)
    with tempfile.TemporaryDirectory(prefix="iqm_sheet_") as tmp:
        path = Path(tmp) / "player.iqm"
        path.write_bytes(assembled(PLAYER, ANIMS))
        assert bpy.ops.import_scene.iqm(filepath=str(path)) == {"FINISHED"}
    rig = next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")
    meshes = [o for o in bpy.context.scene.objects if o.type == "MESH"]
    done = render_contact_sheet(bpy.context, rig, args.output, tile_size=TILE, framed=meshes,
                                view_direction=(0.6, -1.0, 0.3))
    listed = [(item.name, item.frame_start, item.frame_end) for item in rig.classic_model.animations]
    print(f"wrote {args.output}: {len(done)} anims {listed}, frames {done}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
