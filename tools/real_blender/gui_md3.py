"""MD3 scenarios of the GUI session (gui_scenarios.SCENARIOS runs them last): the MD3 import dialog's
*Merge Surfaces* and *Animations* options set by clicking, and the sidebar's skin-set buttons switching
the imported model's .skin set by a real click, seen in the viewport's colours.

The model is made here with the extension's own codec (two surfaces, ``hull`` and ``lid``, three frames,
a tag) in a game folder ``work/q3`` beside two images and two .skin files: the default set names red.tga
for both surfaces, the ``blue`` set blue.tga.
"""
from __future__ import annotations

import importlib
import struct
import subprocess

import numpy as np
from gui_input import browser_ready, choose_by_click, press_execute, show_model_tab, type_path, view3d_override
from gui_tools import SIZE, wait_for

import bpy

MODEL = "models/crate2/crate2.md3"
COLOURS = {"red": (220, 30, 30), "blue": (30, 60, 220)}


def _codec():
    return importlib.import_module("bl_ext.user_default.classic_models.formats.md3.codec")


def _records():
    return importlib.import_module("bl_ext.user_default.classic_models.formats.md3.records")


def grab_rgb() -> np.ndarray:
    """The screen now, (height, width, 3) 8-bit RGB."""
    raw = subprocess.run(["import", "-window", "root", "-depth", "8", "rgb:-"], capture_output=True, check=True,
                         timeout=60).stdout
    return np.frombuffer(raw, dtype=np.uint8).reshape(SIZE[1], SIZE[0], 3)


def _tga(colour: tuple[int, int, int]) -> bytes:
    """An 8 x 8 uncompressed 24-bit TGA of one colour (BGR pixels)."""
    header = struct.pack("<BBBHHBHHHHBB", 0, 0, 2, 0, 0, 0, 0, 0, 8, 8, 24, 0)
    return header + bytes(colour[::-1]) * 64


def write_model(work) -> tuple:
    """The two-surface MD3, its images and skin files under ``work/q3``; returns (model path, game folder)."""
    records = _records()
    game = work / "q3"
    path = game / MODEL
    path.parent.mkdir(parents=True, exist_ok=True)
    quad = np.array([(-16, -16, 0), (16, -16, 0), (16, 16, 0), (-16, 16, 0)], np.float64)

    def surface(name: str, height: float) -> object:
        xyz = np.stack([np.rint((quad + (0, 0, height + 4 * f)) * 64) for f in range(3)]).astype(np.int16)
        return records.Md3Surface(name=name, shaders=[records.Md3Shader(f"models/crate2/{name}")],
                                  triangles=np.array([(0, 2, 1), (0, 3, 2)], np.int32),
                                  st=np.array([(0, 0), (1, 0), (1, 1), (0, 1)], np.float32), xyz=xyz,
                                  normal=np.zeros((3, 4), np.uint16))
    model = records.Md3Model(name=MODEL, frame_names=["idle1", "idle2", "idle3"],
                             frame_bounds=np.zeros((3, 2, 3), np.float32), frame_origin=np.zeros((3, 3), np.float32),
                             frame_radius=np.full(3, 30.0, np.float32), tag_names=["tag_top"],
                             tag_origin=np.zeros((3, 1, 3), np.float32),
                             tag_axis=np.broadcast_to(np.eye(3, dtype=np.float32), (3, 1, 3, 3)).copy(),
                             surfaces=[surface("hull", 0.0), surface("lid", 20.0)])
    path.write_bytes(_codec().write_md3(model))
    for name, colour in COLOURS.items():
        (path.parent / f"{name}.tga").write_bytes(_tga(colour))
    (path.parent / "crate2_default.skin").write_text("hull,models/crate2/red.tga\nlid,models/crate2/red.tga\n")
    (path.parent / "crate2_blue.skin").write_text("hull,models/crate2/blue.tga\nlid,models/crate2/blue.tga\n")
    return path, game


def _slot_images(mesh) -> list[str]:
    """The file name of the image each material slot shows ('' for none)."""
    names = []
    for material in mesh.materials:
        nodes = material.node_tree.nodes if material is not None and material.node_tree else []
        image = next((n.image for n in nodes if n.type == "TEX_IMAGE" and n.image is not None), None)
        names.append(image.filepath_raw.replace("\\", "/").rpartition("/")[2] if image is not None
                     and image.filepath_raw else (image.name if image is not None else ""))
    return names


def md3_import_options_by_click(screen, work, record):
    """File > Import > Quake III Model's dialog: Merge Surfaces ticked and Animations set to Actions by
    clicking where the dialog draws them, the path typed, Import clicked: one mesh holding both surfaces
    (a material slot each, the default skin set's red), one action per animation."""
    path, _game = write_model(work)
    names = {o.name for o in bpy.data.objects}
    with view3d_override(screen):
        bpy.ops.import_scene.md3("INVOKE_DEFAULT")
    opened = yield from wait_for(browser_ready(screen), what="the file browser")
    fb = screen.file_browser()
    if not opened or fb is None:
        record("md3:import_options", False, problem="no file browser")
        return
    win, area, space = fb
    operator = space.active_operator
    merged, rows_merge = yield from choose_by_click(screen, win, area, operator, "merge_surfaces", True, "import_md3")
    mode, rows_mode = yield from choose_by_click(screen, win, area, operator, "animations", "ACTIONS", "import_md3")
    merged = operator.merge_surfaces                 # the second probe may have toggled it on its way
    yield from type_path(screen, win, area, str(path.parent) + "/", path.name)
    yield from press_execute(screen, win, area)
    yield from wait_for(lambda: screen.file_browser() is None, what="the file browser to close")
    roots = [o for o in bpy.data.objects if o.name not in names and o.get("md3_root") is not None]
    meshes = [c for r in roots for c in r.children if c.type == "MESH"]
    record("md3:import_options", merged is True and mode == "ACTIONS" and len(roots) == 1 and len(meshes) == 1
           and len(meshes[0].data.materials) == 2 and roots[0].classic_model.animation_mode == "ACTIONS",
           merge_surfaces=merged, animations=mode, roots=[r.name for r in roots],
           meshes=[(m.name, len(m.data.materials)) for m in meshes],
           slot_images=_slot_images(meshes[0].data) if meshes else [],
           animation_mode=roots[0].classic_model.animation_mode if roots else None,
           actions=[a.name for a in roots[0].classic_model.animations] if roots else [],
           rows={str(k): v for k, v in {**rows_merge, **rows_mode}.items()}, shot="import_md3_animations_chosen.png")
    yield from screen.close_file_browsers()


def _pressed_button(rgb: np.ndarray, box) -> tuple[int, int, int, int] | None:
    """(x, y, w, h) on screen of the blue (pressed) button in ``box``: the skin set shown."""
    x, y, w, h = box
    part = rgb[y:y + h, x:x + w - 24].astype(np.int16)          # the tab strip at the right edge left out
    blue = (part[..., 2] > 140) & (part[..., 2] - part[..., 0] > 50)
    rows, cols = np.nonzero(blue.sum(axis=1) >= 20)[0], np.nonzero(blue.any(axis=0))[0]
    if not len(rows):
        return None
    band = rows[rows - rows[0] < 30]                               # the first row of pressed buttons
    cols = np.nonzero(blue[band[0]:band[-1] + 1].any(axis=0))[0]
    return x + int(cols[0]), y + int(band[0]), int(cols[-1] - cols[0] + 1), int(band[-1] - band[0] + 1)


def _model_colour(rgb: np.ndarray, box) -> tuple[float, float, float]:
    """The mean colour of the saturated pixels of the viewport (the model's faces; the grid is grey)."""
    x, y, w, h = box
    part = rgb[y:y + h, x:x + w].reshape(-1, 3).astype(np.float64)
    saturated = part[(part.max(axis=1) - part.min(axis=1)) > 60]
    return tuple(saturated.mean(axis=0).round(1)) if len(saturated) else (0.0, 0.0, 0.0)


def md3_sidebar_skin_set(screen, work, record):
    """View3D > Sidebar > Model on the merged import: the skin-set button left of the pressed ``default`` one
    (``blue``; the buttons are "(file)", then the sets by name) clicked with the mouse: the model root shows
    the blue set, each slot's material its image, and the viewport draws the model blue instead of red."""
    roots = [o for o in bpy.data.objects if o.get("md3_root") is not None and o.get("md3_skins")
             and "crate2" in o.get("source_file", "")]
    if not roots:
        record("md3:sidebar_skin_set", False, problem="md3_import_options_by_click imported no crate2")
        return
    root = roots[-1]
    mesh = next(c for c in root.children if c.type == "MESH")
    hidden = [o for o in bpy.context.view_layer.objects if o not in (root, mesh) and not o.hide_get()]
    for obj in hidden:
        obj.hide_set(True)
    win, area, region = screen.area("VIEW_3D")
    space = area.spaces.active
    shading = space.shading.type, space.shading.color_type
    space.shading.type, space.shading.color_type = "SOLID", "TEXTURE"
    try:
        bpy.ops.object.select_all(action="DESELECT")
        root.select_set(True)
        mesh.select_set(True)
        bpy.context.view_layer.objects.active = root
        with bpy.context.temp_override(window=win, area=area, region=region):
            bpy.ops.view3d.view_axis(type="TOP")
            bpy.ops.view3d.view_selected()
        root.select_set(False)
        mesh.select_set(False)                       # no selection outline over the colours
        yield from show_model_tab(screen, win, area)
        ui = screen.region(area, "UI")
        yield from wait_for(lambda: ui.active_panel_category == "Model", what="the sidebar's Model tab")
        ui_box, view_box = screen.region_box(win, ui), screen.region_box(win, region)
        _gray, pressed = yield from screen.until("the pressed skin-set button", lambda _gray: _pressed_button(
            grab_rgb(), ui_box), lambda found: found is not None, name="md3_skin_set_before")
        before = grab_rgb()
        before_set, before_images = root.get("md3_skin_set"), _slot_images(mesh.data)
        before_colour = _model_colour(before, (view_box[0], view_box[1], view_box[2] - ui_box[2], view_box[3]))
        if pressed is None:
            record("md3:sidebar_skin_set", False, problem="no pressed skin-set button in the sidebar",
                   tab=ui.active_panel_category, shot="md3_skin_set_before.png")
            return
        px, py, pw, ph = pressed
        yield from screen.click(px - pw // 2 - 2, py + ph // 2)    # the button left of it: "blue"
        yield from wait_for(lambda: root.get("md3_skin_set") == "blue", what="the blue skin set chosen")
        model_box = (view_box[0], view_box[1], view_box[2] - ui_box[2], view_box[3])
        _gray, after_colour = yield from screen.until(
            "the viewport to draw the blue set", lambda _gray: _model_colour(grab_rgb(), model_box),
            lambda colour: colour[2] > colour[0] + 60, name="md3_skin_set_blue")
        after = grab_rgb()
        moved = _pressed_button(after, ui_box)
        after_images = _slot_images(mesh.data)
        record("md3:sidebar_skin_set", before_set == "default" and root.get("md3_skin_set") == "blue"
               and before_images == ["red.tga", "red.tga"] and after_images == ["blue.tga", "blue.tga"]
               and before_colour[0] > before_colour[2] + 60 and after_colour[2] > after_colour[0] + 60,
               skin_set=[before_set, root.get("md3_skin_set")], slot_images=[before_images, after_images],
               viewport_colour=[before_colour, after_colour], pressed=[pressed, moved],
               shots=["md3_skin_set_before.png", "md3_skin_set_blue.png"])
    finally:
        space.shading.type, space.shading.color_type = shading
        for obj in hidden:
            obj.hide_set(False)
        vx, vy, _vw, _vh = screen.region_box(win, region)
        screen.xdo("mousemove", vx + 80, vy + 60)
        yield from screen.drawn()
        screen.key("n")
        yield from wait_for(lambda: screen.region(area, "UI").width <= 50, what="the sidebar to close")
        yield from screen.drawn()


SCENARIOS = (md3_import_options_by_click, md3_sidebar_skin_set)
