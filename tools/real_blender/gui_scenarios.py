"""The scenarios of the GUI session (see gui_session.py): generators yielding seconds to wait.

Each records named checks (``record(name, ok, **measured)``); tests/real_blender reads them from results.json.
"""
from __future__ import annotations

import struct

import bpy

from gui_tools import changed_box, crop, text_bands, wait_for

MIN_OPTION_LINES = 4    # "Operator Presets" + at least three options or option sub-panel headers
FILE_MENU = (41, 13)    # the top bar's File menu, left of the screen


def view3d_override(screen):
    win, area, region = screen.area("VIEW_3D")
    return bpy.context.temp_override(window=win, area=area, region=region)


def browser_ready(screen):
    def ready():
        found = screen.file_browser()
        return found is not None and screen.region(found[1], "TOOL_PROPS").width > 50
    return ready


def option_values(operator) -> dict:
    """The operator's options (test code: reading RNA here is how the test sees what a click changed)."""
    props = operator.properties
    return {name: str(getattr(props, name)) for name in props.bl_rna.properties.keys() if name != "rna_type"}


def make_scene(screen, work, record):
    """A cube with two shape keys after Basis, 6 scene frames at 10 fps; MD2, MDL, MS3D files and a .pak of them."""
    screen.xdo("mousemove", 700, 500)
    screen.key("Escape")                      # the splash screen
    bpy.context.preferences.view.show_tooltips = False   # tooltips would cover what the session measures
    bpy.context.preferences.system.viewport_aa = "OFF"   # no progressive anti-aliasing redraws of the viewport
    bpy.context.scene.display.viewport_aa = "OFF"
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    with view3d_override(screen):
        bpy.ops.mesh.primitive_cube_add(size=2.0)
    cube = bpy.context.view_layer.objects.active
    cube.name = "crate"
    cube.shape_key_add(name="Basis")
    for index, factor in enumerate((1.5, 2.0)):
        key = cube.shape_key_add(name=f"grow{index}")
        key.data.foreach_set("co", [c * factor for v in cube.data.vertices for c in v.co])
    scene = bpy.context.scene
    scene.render.fps, scene.frame_start, scene.frame_end = 10, 1, 6
    cube.keyframe_insert("location", frame=1)
    cube.location = (0, 0, 3)
    cube.keyframe_insert("location", frame=6)
    cube.select_set(True)
    for ext in ("md2", "mdl", "ms3d"):
        getattr(bpy.ops.export_scene, ext)(filepath=str(work / f"crate.{ext}"))
    members = [(f"progs/crate.mdl", (work / "crate.mdl").read_bytes()),
               (f"models/crate/tris.md2", (work / "crate.md2").read_bytes())]
    body, entries, offset = b"", b"", 12
    for name, data in members:              # PACK: header, data, then 64-byte directory entries
        entries += struct.pack("<56sii", name.encode(), offset, len(data))
        body, offset = body + data, offset + len(data)
    (work / "small.pak").write_bytes(struct.pack("<4sii", b"PACK", offset, len(entries)) + body + entries)
    record("scene:models_written", all((work / n).is_file() for n in ("crate.md2", "crate.mdl", "crate.ms3d")))
    yield 1.0


# ---------------------------------------------------------------- file browser dialogs (import and export)
DIALOGS = (("import_md2", "import_scene.md2"), ("import_mdl", "import_scene.mdl"), ("import_ms3d", "import_scene.ms3d"),
           ("export_md2", "export_scene.md2"), ("export_mdl", "export_scene.mdl"), ("export_ms3d", "export_scene.ms3d"))


def file_dialogs(screen, work, record):
    """Each import/export dialog opened as File > Import/Export opens it: its option column must hold options."""
    bpy.context.view_layer.objects.active = bpy.data.objects["crate"]
    bpy.data.objects["crate"].select_set(True)
    for name, opname in DIALOGS:
        module, op = opname.split(".")
        with view3d_override(screen):
            getattr(getattr(bpy.ops, module), op)("INVOKE_DEFAULT")
        opened = yield from wait_for(browser_ready(screen))
        if not opened:
            record(f"dialog:{name}", False, problem="no file browser opened")
            continue
        win, area, space = screen.file_browser()
        gray = yield from screen.settle(f"dialog_{name}")
        box = screen.region_box(win, screen.region(area, "TOOL_PROPS"))
        lines = text_bands(crop(gray, box))
        record(f"dialog:{name}", len(lines) >= MIN_OPTION_LINES and space.active_operator is not None,
               option_lines=len(lines), minimum=MIN_OPTION_LINES, column=box, shot=f"dialog_{name}.png",
               operator=space.active_operator.bl_idname if space.active_operator else None)
        yield from screen.close_file_browsers()
        yield 0.3


# ---------------------------------------------------------------- the File menu, by mouse
def open_file_menu(screen, label: str):
    """Click File in the top bar (again when the first click only focused the window); returns the
    menu's box on screen and the screen with it open, or None."""
    screen.xdo("mousemove", 700, 500)
    closed = yield from screen.settle()
    for attempt in range(3):
        yield from screen.click(*FILE_MENU)
        yield 0.3
        opened = yield from screen.settle(f"menu_{label}_file", changed_from=closed, timeout=8)
        menu = changed_box(closed, opened, within=(0, 22, 500, 700))
        if menu is not None and menu[3] > 200:
            return menu, opened
        screen.xdo("mousemove", 700, 500)
        yield 0.5
    return None


def open_file_submenu(screen, which: int, label: str):
    """File, then hover its items top-down; the ``which``-th item opening a long submenu (>= 8 lines) is
    Import (0) or Export (1). Returns (submenu box, its text lines, the item's row y) or None."""
    found = yield from open_file_menu(screen, label)
    if found is None:
        return None
    (mx, my, mw, mh), opened = found
    seen, hovered = 0, opened
    for top, bottom in text_bands(crop(opened, (mx, my, mw, mh))):
        y = my + (top + bottom) // 2
        screen.xdo("mousemove", mx + 50, y)
        yield 0.3
        hovered = yield from screen.settle(changed_from=hovered, timeout=8)
        # a submenu opens beside the menu at the item's row (the status bar at the bottom changes too: left out)
        sub = changed_box(opened, hovered, within=(mx + mw + 2, 0, 700, 960))
        print("HOVER", y, sub, (mx, my, mw, mh), flush=True)
        screen.shot(f"debug_hover_{label}_{y}")
        if sub is None or sub[2] < 100 or sub[0] > mx + mw + 40 or not (y - 80 < sub[1] < y + 20):
            continue
        lines = text_bands(crop(hovered, sub))
        if len(lines) >= 8:
            if seen == which:
                screen.shot(f"menu_{label}")
                return sub, lines, y
            seen += 1
    return None


def pick_from_menu(screen, sub, lines, row_y, from_end: int):
    """Move right into the submenu on the item's own row, then down to the ``from_end``-th line from its end; click."""
    sx, sy, _sw, _sh = sub
    top, bottom = lines[-from_end]
    screen.xdo("mousemove", sx + 60, row_y)
    yield 0.3
    screen.xdo("mousemove", sx + 60, sy + (top + bottom) // 2)
    yield 0.5
    yield from screen.settle()
    yield from screen.click(sx + 60, sy + (top + bottom) // 2)
    yield 0.5


def type_path(screen, win, area, directory: str, filename: str):
    """Type the file name into the file name field (bottom), then the folder into the path field (top)."""
    space = area.spaces.active
    ex, ey, ew, eh = screen.region_box(win, screen.region(area, "EXECUTE"))
    yield from screen.click(ex + int(ew * 0.25), ey + eh // 2, clicks=2)
    yield from screen.settle()
    screen.key("ctrl+a")
    screen.type(filename)
    screen.key("Return")
    yield from screen.settle()
    ux, uy, uw, uh = screen.region_box(win, screen.region(area, "UI"))
    yield from screen.click(ux + int(uw * 0.35), uy + uh // 2, clicks=2)
    yield from screen.settle()
    screen.key("ctrl+a")
    screen.type(directory)
    screen.key("Return")
    yield from screen.settle()
    print("PARAMS", space.params.directory, space.params.filename, flush=True)
    return space.params.directory.decode() if isinstance(space.params.directory, bytes) else space.params.directory


def press_execute(screen, win, area):
    """Click the dialog's Import/Export button (the right-most button of the bottom bar)."""
    ex, ey, ew, eh = screen.region_box(win, screen.region(area, "EXECUTE"))
    yield from screen.click(ex + ew - 60, ey + eh // 2)
    yield from screen.settle()
    if screen.file_browser() is not None:
        yield from screen.click(ex + ew - 60, ey + eh // 2)   # the first click may only end the text edit
        yield from screen.settle()


def menu_import_md2(screen, work, record):
    """File > Import > Quake II Model (.md2) with the mouse, a typed path, the Import button."""
    before = {o.name for o in bpy.data.objects}
    found = yield from open_file_submenu(screen, 0, "import")
    if found is None:
        screen.key("Escape", "Escape")
        record("menu:import_md2", False, problem="File > Import submenu not found")
        return
    sub, lines, row_y = found
    yield from pick_from_menu(screen, sub, lines, row_y, from_end=4)   # md2, mdl, ms3d, archive: ours come last
    opened = yield from wait_for(browser_ready(screen))
    fb = screen.file_browser()
    operator = fb[2].active_operator.bl_idname if fb and fb[2].active_operator else None
    record("menu:import_entry", operator == "IMPORT_SCENE_OT_md2", operator=operator, submenu_lines=len(lines))
    if not opened or operator != "IMPORT_SCENE_OT_md2":
        yield from screen.close_file_browsers()
        return
    win, area, space = fb
    yield from type_path(screen, win, area, str(work) + "/", "crate.md2")
    screen.shot("menu_import_md2_typed")
    yield from press_execute(screen, win, area)
    yield from wait_for(lambda: screen.file_browser() is None, timeout=10)
    new = [o for o in bpy.data.objects if o.name not in before]
    imported = [o for o in new if o.type == "MESH" and o.classic_model.source_format == "MD2"]
    yield from screen.settle("menu_import_md2_done")
    record("menu:import_md2", len(imported) == 1 and screen.file_browser() is None,
           new_objects=[o.name for o in new],
           shape_keys=len(imported[0].data.shape_keys.key_blocks) if imported and imported[0].data.shape_keys else 0)
    yield from screen.close_file_browsers()


def probe_rows(screen, win, area, op, wanted: str, label: str):
    """Find the row of option ``wanted`` in the option column: hover each text line, Ctrl+Wheel (Blender's
    'cycle value' gesture), see which option changed, and turn it back. Sub-panel headers (no option
    changes) are clicked open once. Returns the screen y of the row, or None."""
    box = screen.region_box(win, screen.region(area, "TOOL_PROPS"))
    px, py, pw, _ph = box
    mapping = {}
    for attempt in range(2):
        gray = yield from screen.settle(f"probe_{label}_{attempt}")
        headers = []
        for top, bottom in text_bands(crop(gray, box))[1:]:            # the first line: Operator Presets
            y = py + (top + bottom) // 2
            before = option_values(op)
            screen.xdo("mousemove", px + int(pw * 0.75), y, "sleep", "0.2", "keydown", "ctrl", "click", "5", "keyup", "ctrl")
            yield 0.5
            yield from screen.settle()
            after = option_values(op)
            changed = [k for k in after if after[k] != before[k]]
            if not changed:
                headers.append(y)
                continue
            mapping[y] = changed
            screen.xdo("keydown", "ctrl", "click", "4", "keyup", "ctrl")
            yield 0.5
            yield from screen.settle()
            if wanted in changed:
                return y, mapping
        for y in headers:                                          # open closed sub-panels, then look again
            yield from screen.click(px + 30, y)
            yield from screen.settle()
    return None, mapping


def menu_export_md2_shape_keys(screen, work, record):
    """File > Export > Quake II Model with the mouse; Frames set to Shape Keys by clicking its menu; Export."""
    bpy.ops.object.select_all(action="DESELECT")
    crate = bpy.data.objects["crate"]
    crate.select_set(True)
    bpy.context.view_layer.objects.active = crate
    found = yield from open_file_submenu(screen, 1, "export")
    if found is None:
        screen.key("Escape", "Escape")
        record("menu:export_md2_shape_keys", False, problem="File > Export submenu not found")
        return
    sub, lines, row_y = found
    yield from pick_from_menu(screen, sub, lines, row_y, from_end=3)   # md2, mdl, ms3d come last
    opened = yield from wait_for(browser_ready(screen))
    fb = screen.file_browser()
    operator = fb[2].active_operator if fb else None
    record("menu:export_entry", operator is not None and operator.bl_idname == "EXPORT_SCENE_OT_md2",
           operator=operator.bl_idname if operator else None)
    if not opened or operator is None or operator.bl_idname != "EXPORT_SCENE_OT_md2":
        yield from screen.close_file_browsers()
        return
    win, area, _space = fb
    row, mapping = yield from probe_rows(screen, win, area, operator, "frame_source", "export_md2")
    if row is None:
        record("menu:export_md2_shape_keys", False, problem="no row of the option column changes Frames",
               rows={str(k): v for k, v in mapping.items()})
        yield from screen.close_file_browsers()
        return
    px, _py, pw, _ph = screen.region_box(win, screen.region(area, "TOOL_PROPS"))
    yield from screen.click(px + int(pw * 0.75), row)          # opens the Frames menu, the current item under the mouse
    yield 0.5
    yield from screen.settle("export_md2_frames_menu")
    screen.key("Down", "Return")                    # Timeline -> Shape Keys
    yield 0.5
    yield from screen.settle("export_md2_shape_keys")
    chosen = operator.frame_source
    yield from type_path(screen, win, area, str(work) + "/", "shape_keys.md2")
    yield from press_execute(screen, win, area)
    yield from wait_for(lambda: screen.file_browser() is None, timeout=10)
    written = work / "shape_keys.md2"
    record("menu:export_md2_shape_keys", chosen == "SHAPE_KEYS" and written.is_file(), frames_option=chosen,
           written=str(written) if written.is_file() else None, rows={str(k): v for k, v in mapping.items()})
    yield from screen.close_file_browsers()


SCENARIOS = (make_scene, file_dialogs, menu_import_md2, menu_export_md2_shape_keys)
