"""MD3 in the sidebar (View3D > Sidebar > Model, ``ui/panel.py``): the model root's part, level of detail
and skin sets."""
from __future__ import annotations

from ...common.contract import MD3_ROOT
from ...common.md3.contract import MD3_LOD, MD3_SKIN_SET
from ...importers.md3.skin_sets import CLASSIC_MODELS_OT_md3_skin_set, skin_set_names


def draw_sidebar(layout, settings, root) -> None:
    """The model root's part, level of detail and skin sets (a button per set; the one shown pressed)."""
    box = layout.box()
    part = root.get(MD3_ROOT, "")
    box.label(text=f"Quake III model{f' ({part})' if part else ''}, level of detail {root.get(MD3_LOD, 0)}")
    names = skin_set_names(root)
    if names:
        box.label(text="Skin Set")
        flow = box.grid_flow(columns=3, align=True)
        for name in [""] + names:
            op = flow.operator(CLASSIC_MODELS_OT_md3_skin_set.bl_idname, text=name or "(file)",
                               depress=root.get(MD3_SKIN_SET, "") == name)
            op.set_name = name


CLASSES = (CLASSIC_MODELS_OT_md3_skin_set,)
