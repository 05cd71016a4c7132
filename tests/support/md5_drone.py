"""The corpus's rigged Red Eclipse drone imported with every anim of its folder, as the edited MD5 export
tests use it (as imported, scaled, or with a bone moved), and its Timeline export at the game's rate read back."""
from __future__ import annotations

from pathlib import Path

import pytest

from .environment import CORPUS

DRONE = CORPUS / "md5" / "redeclipse/data/actors/drone/mesh.md5mesh"


def import_drone(bpy, edit: str):
    if not DRONE.is_file():
        pytest.skip(f"corpus file not found: {DRONE}")
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.ops.import_scene.md5(filepath=str(DRONE), find_anims="FOLDER")
    rig = next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")
    if edit == "scaled":
        rig.scale = (1.1, 1.1, 1.1)
    elif edit == "bone moved":
        bpy.context.view_layer.objects.active = rig
        bpy.ops.object.mode_set(mode="EDIT")
        rig.data.edit_bones[3].head.x += 0.25
        bpy.ops.object.mode_set(mode="OBJECT")
    return rig


def exported(bpy, path: Path) -> tuple[bytes, bytes]:
    """The Timeline sampled into one ``.md5anim`` (Frame Rate: Game; the default writes each anim back)."""
    assert bpy.ops.export_scene.md5(filepath=str(path), frame_source="TIMELINE", frame_rate="GAME") == {"FINISHED"}
    return path.read_bytes(), path.with_suffix(".md5anim").read_bytes()
