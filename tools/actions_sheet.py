"""The README's picture of the actions workflow: a head rigged in Blender with one action per
animation, exported with *Frames: Actions* to MD2, imported back with *Animations: Actions*, and
rendered one slot per action (first, middle and last frame).

    .venvs/bpy-5.2/bin/python tools/actions_sheet.py [-o docs/actions_sheet.png]

Prints the frame names the export wrote, per action.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
if str(CHECKOUT) not in sys.path:
    sys.path.insert(0, str(CHECKOUT))

# (action, [(frame, x, z) neck rotation keys]): nod forward and back, shake left and right, a slow tilt
ACTIONS = (("nod", [(1, 0.0, 0.0), (4, 0.0, -0.6), (8, 0.0, 0.3), (10, 0.0, 0.0)]),
           ("shake", [(1, 0.0, 0.0), (3, -0.5, 0.0), (6, 0.5, 0.0), (8, 0.0, 0.0)]),
           ("tilt", [(1, 0.0, 0.0), (6, 0.45, -0.2), (12, 0.0, 0.0)]))


def build_rig(context):
    """Suzanne on a one-bone neck (tools/demo.py) with the actions above, each kept by a fake user."""
    import bpy

    from tools.demo import add_nod_rig, add_suzanne
    head = add_suzanne(context)
    rig = add_nod_rig(context, head)
    demo_action = rig.animation_data.action
    rig.animation_data.action = None
    bpy.data.actions.remove(demo_action)
    bone = rig.pose.bones["neck"]
    for name, keys in ACTIONS:
        action = bpy.data.actions.new(name)
        action.use_fake_user = True
        rig.animation_data.action = action
        for frame, x, z in keys:
            bone.rotation_euler = (x, 0.0, z)
            bone.keyframe_insert("rotation_euler", frame=frame)
    rig.animation_data.action = bpy.data.actions[ACTIONS[0][0]]
    return head


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", type=Path, default=CHECKOUT / "docs" / "actions_sheet.png")
    args = parser.parse_args(argv)
    from tools.load_extension import enable_extension
    enable_extension()
    import bpy

    from formats.animations import group_animations
    from formats.md2.codec import parse_md2
    from tools.contact_sheet import render_contact_sheet
    context = bpy.context
    bpy.ops.wm.read_homefile(use_empty=True)
    head = build_rig(context)
    for obj in context.view_layer.objects:
        obj.select_set(obj == head)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "head.md2"
        bpy.ops.export_scene.md2(filepath=str(path), frame_source="ACTIONS", frame_rate="SCENE")
        names = parse_md2(path.read_bytes()).frame_names
        for anim in group_animations(names):
            print(f"{anim.name}: {names[anim.first]} .. {names[anim.last]} ({anim.frames} frames)")
        bpy.ops.wm.read_homefile(use_empty=True)
        bpy.ops.import_scene.md2(filepath=str(path), animations="ACTIONS")
    obj = context.view_layer.objects.active
    print("actions after import:", ", ".join(item.action.name for item in obj.classic_model.animations))
    groups = render_contact_sheet(context, obj, args.output, tile_size=160)
    print(f"{args.output}: {sum(map(len, groups))} frames from {len(groups)} actions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
