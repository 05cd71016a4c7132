"""The scenarios of the GUI session (see gui_session.py): generators yielding until the state they need
(gui_tools: Blender's loop turns, the screen settled, a measure drawn whole, Blender's data).

Each records named checks (``record(name, ok, **measured)``); tests/real_blender reads them from results.json.
"""
from __future__ import annotations

import importlib
import struct
from pathlib import Path

from gui_input import (
    browser_ready,
    choose_by_click,
    open_file_submenu,
    open_import_entry,
    pick_from_menu,
    press_execute,
    show_model_tab,
    type_path,
    view3d_override,
)
from gui_tools import changed_box, crop, text_bands, turns, wait_for

import bpy

MIN_OPTION_LINES = 4    # "Operator Presets" + at least three options or option sub-panel headers


def table():
    """The installed extension's table of formats (the File menus list its rows, ours last)."""
    return importlib.import_module("bl_ext.user_default.classic_models.formats.table")


def make_scene(screen, work, record):
    """A cube with two shape keys after Basis, 6 scene frames at 10 fps; MD2, MDL, MS3D files and a .pak of them."""
    screen.xdo("mousemove", 700, 500)
    yield from screen.settle()                # the window and its splash screen drawn
    screen.key("Escape")                      # the splash screen
    yield from screen.drawn()
    record("screen:gray", True, **screen.check_gray())    # libX11's looks made grey, once equal to ImageMagick's
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
    for ext in ("md2", "mdl", "ms3d", "md3"):
        getattr(bpy.ops.export_scene, ext)(filepath=str(work / f"crate.{ext}"))
    members = [("progs/crate.mdl", (work / "crate.mdl").read_bytes()),
               ("models/crate/tris.md2", (work / "crate.md2").read_bytes())]
    body, entries, offset = b"", b"", 12
    for name, data in members:              # PACK: header, data, then 64-byte directory entries
        entries += struct.pack("<56sii", name.encode(), offset, len(data))
        body, offset = body + data, offset + len(data)
    (work / "small.pak").write_bytes(struct.pack("<4sii", b"PACK", offset, len(entries)) + body + entries)
    (work / "crate.md5mesh").write_text(CRATE_MD5MESH)      # no MD5 export yet: a small hand-written mesh
    record("scene:models_written", all((work / n).is_file() for n in ("crate.md2", "crate.mdl", "crate.ms3d", "crate.md3")))
    yield from screen.drawn()


CRATE_MD5MESH = """MD5Version 10
commandline ""
numJoints 1
numMeshes 1
joints {
\t"root" -1 ( 0 0 0 ) ( 0 0 0 )
}
mesh {
\tshader "crate"
\tnumverts 4
\tvert 0 ( 0 0 ) 0 1
\tvert 1 ( 1 0 ) 1 1
\tvert 2 ( 0 1 ) 2 1
\tvert 3 ( 1 1 ) 3 1
\tnumtris 4
\ttri 0 0 1 2
\ttri 1 0 3 1
\ttri 2 0 2 3
\ttri 3 1 3 2
\tnumweights 4
\tweight 0 0 1 ( 0 0 0 )
\tweight 1 0 1 ( 8 0 0 )
\tweight 2 0 1 ( 0 8 0 )
\tweight 3 0 1 ( 0 0 8 )
}
"""


# ---------------------------------------------------------------- file browser dialogs (import and export)
DIALOGS = (("import_md2", "import_scene.md2"), ("import_mdl", "import_scene.mdl"), ("import_ms3d", "import_scene.ms3d"),
           ("import_md3", "import_scene.md3"), ("import_md5", "import_scene.md5"), ("import_iqm", "import_scene.iqm"),
           ("export_md2", "export_scene.md2"), ("export_mdl", "export_scene.mdl"), ("export_ms3d", "export_scene.ms3d"),
           ("export_md3", "export_scene.md3"), ("export_md5", "export_scene.md5"), ("export_iqm", "export_scene.iqm"))


def file_dialogs(screen, work, record):
    """Each import/export dialog opened as File > Import/Export opens it: its option column must hold options."""
    bpy.context.view_layer.objects.active = bpy.data.objects["crate"]
    bpy.data.objects["crate"].select_set(True)
    for name, opname in DIALOGS:
        module, op = opname.split(".")
        with view3d_override(screen):
            getattr(getattr(bpy.ops, module), op)("INVOKE_DEFAULT")
        opened = yield from wait_for(browser_ready(screen), what="the file browser")
        if not opened:
            record(f"dialog:{name}", False, problem="no file browser opened")
            continue
        win, area, space = screen.file_browser()
        box = screen.region_box(win, screen.region(area, "TOOL_PROPS"))
        _gray, lines = yield from screen.until(f"{name}'s option column", lambda gray, box=box: text_bands(crop(gray, box)),
                                               lambda lines: len(lines) >= MIN_OPTION_LINES, name=f"dialog_{name}")
        record(f"dialog:{name}", len(lines) >= MIN_OPTION_LINES and space.active_operator is not None,
               option_lines=len(lines), minimum=MIN_OPTION_LINES, column=box, shot=f"dialog_{name}.png",
               operator=space.active_operator.bl_idname if space.active_operator else None)
        yield from screen.close_file_browsers()


# ---------------------------------------------------------------- the File menu, by mouse


def menu_import_md2(screen, work, record):
    """File > Import > Quake II Model (.md2) with the mouse, a typed path, the Import button."""
    before = {o.name for o in bpy.data.objects}
    # the table's formats, then Game Archive: ours come last, MD2 first of them
    entry = yield from open_import_entry(screen, record, "menu:import_md2", len(table().importable()) + 1)
    if entry is None:
        return
    opened, fb, lines = entry
    operator = fb[2].active_operator.bl_idname if fb and fb[2].active_operator else None
    record("menu:import_entry", operator == "IMPORT_SCENE_OT_md2", operator=operator, submenu_lines=len(lines))
    if not opened or operator != "IMPORT_SCENE_OT_md2":
        yield from screen.close_file_browsers()
        return
    win, area, space = fb
    yield from type_path(screen, win, area, str(work) + "/", "crate.md2")
    screen.shot("menu_import_md2_typed")
    yield from press_execute(screen, win, area)
    yield from wait_for(lambda: screen.file_browser() is None, what="the file browser to close")
    new = [o for o in bpy.data.objects if o.name not in before]
    imported = [o for o in new if o.type == "MESH" and o.classic_model.source_format == "MD2"]
    yield from screen.settle("menu_import_md2_done")
    record("menu:import_md2", len(imported) == 1 and screen.file_browser() is None,
           new_objects=[o.name for o in new],
           shape_keys=len(imported[0].data.shape_keys.key_blocks) if imported and imported[0].data.shape_keys else 0)
    yield from screen.close_file_browsers()


def open_md2_import(screen, record, check):
    """The MD2 import's file browser as File > Import opens it: (window, area, space); None after recording
    ``check`` as failed when none opened."""
    with view3d_override(screen):
        bpy.ops.import_scene.md2("INVOKE_DEFAULT")
    return (yield from opened_browser(screen, record, check))


def import_typed(screen, work, win, area, name: str):
    """Type the work folder and ``name`` into the open file browser, click Import, wait for it to close."""
    yield from type_path(screen, win, area, str(work) + "/", name)
    yield from press_execute(screen, win, area)
    yield from wait_for(lambda: screen.file_browser() is None, what="the file browser to close")


def opened_browser(screen, record, check):
    """The file browser an ``INVOKE_DEFAULT`` just opened, as (window, area, space); None after recording
    ``check`` as failed when none opened."""
    opened = yield from wait_for(browser_ready(screen), what="the file browser")
    fb = screen.file_browser()
    if not opened or fb is None:
        record(check, False, problem="no file browser")
        return None
    return fb


def import_option_by_click(screen, work, record):
    """The MD2 import dialog: Animations switched from Timeline to Actions by clicking its menu, path typed,
    Import clicked: the model comes in with one action per animation."""
    names = {o.name for o in bpy.data.objects}
    fb = yield from open_md2_import(screen, record, "click:import_md2_actions")
    if fb is None:
        return
    win, area, space = fb
    chosen, mapping = yield from choose_by_click(screen, win, area, space.active_operator, "animations", "ACTIONS",
                                           "import_md2")
    yield from import_typed(screen, work, win, area, "crate.md2")
    new = [o for o in bpy.data.objects if o.name not in names and o.classic_model.source_format == "MD2"]
    record("click:import_md2_actions", chosen == "ACTIONS" and len(new) == 1
           and new[0].classic_model.animation_mode == "ACTIONS", animations_option=chosen,
           imported=[(o.name, o.classic_model.animation_mode) for o in new], rows={str(k): v for k, v in mapping.items()})
    yield from screen.close_file_browsers()


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
    yield from pick_from_menu(screen, sub, lines, row_y, from_end=len(table().exportable()))   # ours last, MD2 first
    opened = yield from wait_for(browser_ready(screen), what="the file browser")
    fb = screen.file_browser()
    operator = fb[2].active_operator if fb else None
    record("menu:export_entry", operator is not None and operator.bl_idname == "EXPORT_SCENE_OT_md2",
           operator=operator.bl_idname if operator else None)
    if not opened or operator is None or operator.bl_idname != "EXPORT_SCENE_OT_md2":
        yield from screen.close_file_browsers()
        return
    win, area, _space = fb
    chosen, mapping = yield from choose_by_click(screen, win, area, operator, "frame_source", "SHAPE_KEYS",
                                                 "export_md2")
    if chosen != "SHAPE_KEYS":
        record("menu:export_md2_shape_keys", False, problem="no row of the option column sets Frames to Shape Keys",
               rows={str(k): v for k, v in mapping.items()})
        yield from screen.close_file_browsers()
        return
    yield from type_path(screen, win, area, str(work) + "/", "shape_keys.md2")
    yield from press_execute(screen, win, area)
    yield from wait_for(lambda: screen.file_browser() is None, what="the file browser to close")
    written = work / "shape_keys.md2"
    yield from screen.settle("export_md2_done")
    record("menu:export_md2_shape_keys", chosen == "SHAPE_KEYS" and written.is_file(), frames_option=chosen,
           written=str(written) if written.is_file() else None, rows={str(k): v for k, v in mapping.items()})
    yield from screen.close_file_browsers()


def export_dialog_after_loose_import(screen, work, record):
    """A loose MD2 imported from its own folder (``work/loose/gun.md2``), then File > Export > Quake II Model
    as Blender invokes it: the file browser opens in that folder with that name (its params and the
    operator's file path), not at the home folder as ``untitled.md2``."""
    folder = work / "loose"
    folder.mkdir(exist_ok=True)
    (folder / "gun.md2").write_bytes((work / "crate.md2").read_bytes())
    with view3d_override(screen):
        bpy.ops.import_scene.md2(filepath=str(folder / "gun.md2"))
        bpy.ops.export_scene.md2("INVOKE_DEFAULT")
    fb = yield from opened_browser(screen, record, "dialog:export_after_loose_import")
    if fb is None:
        return
    _win, _area, space = fb
    params = space.params
    directory = params.directory.decode() if isinstance(params.directory, bytes) else params.directory
    operator = space.active_operator
    yield from screen.settle("export_after_loose_import")
    record("dialog:export_after_loose_import",
           directory.rstrip("/") == str(folder) and params.filename == "gun.md2"
           and operator is not None and operator.filepath == str(folder / "gun.md2"),
           directory=directory, filename=params.filename, filepath=operator.filepath if operator else None,
           expected=str(folder / "gun.md2"), shot="export_after_loose_import.png")
    yield from screen.close_file_browsers()


def popup_lines(screen, before, after):
    """Text lines of what appeared between two screens (a popup dialog), and its box."""
    box = changed_box(before, after, within=(0, 0, 1600, 960))
    return (text_bands(crop(after, box)) if box else []), box


def popup(screen, before, name: str, minimum: int):
    """The popup an invoke just opened, drawn whole: (screen, its text lines, its box) once it shows at least
    ``minimum`` lines (a popup can be drawn in steps, seconds apart on a loaded machine), saved as NAME.png;
    what it shows after the overall timeout otherwise (the check then fails on it)."""
    after, (lines, box) = yield from screen.until(
        f"the popup {name} to show {minimum} lines", lambda gray: popup_lines(screen, before, gray),
        lambda found: len(found[0]) >= minimum, name=name, changed_from=before)
    return after, lines, box


def confirm_popup(screen, box, after):
    """Move onto the popup, press Return, wait until Blender has handled it and the popup is gone."""
    if box:
        screen.xdo("mousemove", box[0] + box[2] // 2, box[1] + box[3] // 2)
        yield from screen.drawn()
    screen.key("Return")
    yield from screen.settle(changed_from=after)


def archive_dialog(screen, work, record):
    """The Game Archive dialog on a small .pak (as File > Import > Game Archive opens it once a file is chosen)."""
    screen.xdo("mousemove", 650, 450)
    before = yield from screen.settle()
    with view3d_override(screen):
        bpy.ops.import_scene.game_archive("INVOKE_DEFAULT", filepath=str(work / "small.pak"))
    after, lines, box = yield from popup(screen, before, "archive_dialog", 6)
    record("dialog:archive", len(lines) >= 6, option_lines=len(lines), box=box, shot="archive_dialog.png")
    screen.key("Escape")
    yield from screen.settle(changed_from=after)
    broken = work / "a folder with a long name for the message" / "broken.pak"   # its directory past its end
    broken.parent.mkdir(exist_ok=True)
    broken.write_bytes(struct.pack("<4sii", b"PACK", 1000000, 128))
    before = yield from screen.settle()
    with view3d_override(screen):
        bpy.ops.import_scene.game_archive("INVOKE_DEFAULT", filepath=str(broken))
    after, lines, box = yield from popup(screen, before, "archive_broken", 1)
    record("dialog:archive_broken", box is not None, popup_lines=len(lines), box=box, shot="archive_broken.png")
    screen.key("Escape")
    yield from screen.settle(changed_from=after)


def drag_and_drop(screen, work, record):
    """The FileHandlers: poll_drop where a file is dropped, then what a drop on the viewport runs
    (wm.drop_import_file with the dropped folder and file, INVOKE: the import's popup), confirmed with Return."""
    areas = {kind: screen.area(kind) for kind in ("VIEW_3D", "OUTLINER", "PROPERTIES")}
    for key in ("md2", "mdl", "ms3d", "md3", "md5", "archive"):
        handler = getattr(bpy.types, f"IO_FH_classic_models_{key}", None)
        polls = {}
        for kind, (win, area, region) in areas.items():
            with bpy.context.temp_override(window=win, area=area, region=region):
                polls[kind] = bool(handler.poll_drop(bpy.context)) if handler else None
        record(f"drop:poll_{key}", polls == {"VIEW_3D": True, "OUTLINER": True, "PROPERTIES": False}, poll_drop=polls)
    for ext, fmt in (("md2", "MD2"), ("mdl", "MDL"), ("ms3d", "MS3D"), ("md3", "MD3"), ("md5mesh", "MD5")):
        names = {o.name for o in bpy.data.objects}
        screen.xdo("mousemove", 650, 450)
        before = yield from screen.settle()
        with view3d_override(screen):
            bpy.ops.wm.drop_import_file("INVOKE_DEFAULT", directory=str(work), files=[{"name": f"crate.{ext}"}])
        after, lines, box = yield from popup(screen, before, f"drop_{ext}", 4)
        yield from confirm_popup(screen, box, after)

        def imported(fmt=fmt, names=names):
            return [o for o in bpy.data.objects if o.name not in names and o.classic_model.source_format == fmt]
        yield from wait_for(imported, what=f"the dropped crate.{ext} in the scene")
        new = imported()
        record(f"drop:{ext}", len(lines) >= 4 and len(new) >= 1, popup_lines=len(lines), box=box,
               imported=[o.name for o in new], shot=f"drop_{ext}.png")
    before = yield from screen.settle()
    with view3d_override(screen):
        bpy.ops.wm.drop_import_file("INVOKE_DEFAULT", directory=str(work), files=[{"name": "small.pak"}])
    after, lines, box = yield from popup(screen, before, "drop_pak", 6)
    record("drop:pak", len(lines) >= 6, popup_lines=len(lines), box=box, shot="drop_pak.png")
    screen.key("Escape")
    yield from screen.settle(changed_from=after)


# Lines an exporter adds to Collection properties > Exporters: its list row, Export All, its header and File
# Path are 4 (all an MD2 exporter showed before issue 24; the MS3D one added 10); at least 2 more are its
# options or their groups. The region clips a long exporter (the panels below are pushed out of view), so
# the count of lines added is a floor: 8 for the MD2 exporter of issue 24 in a 878 px high editor.
MIN_EXPORTER_LINES = 6


def collection_exporters(screen, work, record):
    """Collection properties > Exporters > Add: each exporter draws the export operator's options; then
    Export through it. The big 3D viewport area shows the Properties editor meanwhile (room for them)."""
    win, area, _region = screen.area("VIEW_3D")
    area.type = "PROPERTIES"
    yield from screen.drawn()
    region = screen.region(area, "WINDOW")
    space = area.spaces.active
    layer = bpy.context.view_layer
    layer.active_layer_collection = layer.layer_collection.children["Collection"]
    space.context = "COLLECTION"
    collection = bpy.data.collections["Collection"]
    try:
        for ext in ("md2", "mdl", "ms3d", "md3"):
            before = yield from screen.settle()
            with bpy.context.temp_override(window=win, area=area, region=region):
                bpy.ops.collection.exporter_add(name=f"IO_FH_classic_models_{ext}")
            exporter = collection.exporters[-1]
            exporter.is_open = True
            box = screen.region_box(win, region)
            _after, added = yield from screen.until(
                f"the {ext} exporter's options", lambda gray, box=box, before=before: len(text_bands(crop(
                    gray, box))) - len(text_bands(crop(before, box))), lambda added: added >= MIN_EXPORTER_LINES,
                name=f"collection_exporter_{ext}", changed_from=before)
            target = work / f"collection.{ext}"
            exporter.export_properties.filepath = str(target)
            with bpy.context.temp_override(window=win, area=area, region=region):
                bpy.ops.collection.exporter_export(index=len(collection.exporters) - 1)
            record(f"collection_exporter:{ext}", added >= MIN_EXPORTER_LINES and target.is_file(),
                   lines_added=added, minimum=MIN_EXPORTER_LINES, written=target.is_file(),
                   shot=f"collection_exporter_{ext}.png")
            with bpy.context.temp_override(window=win, area=area, region=region):
                bpy.ops.collection.exporter_remove(index=len(collection.exporters) - 1)
            yield from turns()
    finally:
        area.type = "VIEW_3D"
    yield from screen.drawn()


def sidebar(screen, work, record):
    """View3D > Sidebar > Model on an imported MD2, MDL and MS3D: the panel, its animation and frame lists."""
    win, area, region = screen.area("VIEW_3D")
    vx, vy, vw, vh = screen.region_box(win, region)
    for ext in ("md2", "mdl", "ms3d"):
        bpy.ops.object.select_all(action="DESELECT")
        with view3d_override(screen):
            getattr(bpy.ops.import_scene, ext)(filepath=str(work / f"crate.{ext}"))
        obj = bpy.context.view_layer.objects.active
        yield from screen.drawn()
        yield from show_model_tab(screen, win, area)      # View > Sidebar, its Model tab
        ui = screen.region(area, "UI")
        yield from wait_for(lambda ui=ui: ui.active_panel_category == "Model", what="the sidebar's Model tab")
        box = screen.region_box(win, ui)
        gray, lines = yield from screen.until(f"the sidebar's Model tab on the {ext}",
                                              lambda gray, box=box: text_bands(crop(gray, box)), lambda lines: len(lines) >= 5,
                                              name=f"sidebar_{ext}")
        record(f"sidebar:{ext}", ui.active_panel_category == "Model" and len(lines) >= 5 and obj is not None and obj.classic_model.source_format != "",
               lines=len(lines), object=obj.name if obj else None, shot=f"sidebar_{ext}.png",
               tab=ui.active_panel_category, box=box,
               content_box=(box[0], box[1], box[2], min(box[3], lines[-1][1] + 14)) if lines else box,
               animations=len(obj.classic_model.animations) if obj else 0,
               frames=len(obj.classic_model.frames) if obj else 0)
    screen.xdo("mousemove", vx + 80, vy + 60)
    yield from screen.drawn()
    screen.key("n")
    yield from wait_for(lambda: screen.region(area, "UI").width <= 50, what="the sidebar to close")
    yield from screen.drawn()


def presets(screen, work, record):
    """Operator Presets in the MD2 export and MD2 import dialogs: add one, change the option, apply it back."""
    import os
    for opname, option, value in (("export_scene.md2", "scale", 2.5), ("import_scene.md2", "scale", 3.5)):
        module, op = opname.split(".")
        with view3d_override(screen):
            getattr(getattr(bpy.ops, module), op)("INVOKE_DEFAULT")
        opened = yield from wait_for(browser_ready(screen), what="the file browser")
        fb = screen.file_browser()
        if not opened or fb is None:
            record(f"preset:{opname}", False, problem="no file browser")
            continue
        win, area, space = fb
        operator = space.active_operator
        override = dict(window=win, area=area, region=screen.region(area, "TOOL_PROPS"))
        setattr(operator, option, value)
        try:
            with bpy.context.temp_override(**override):
                bpy.ops.wm.operator_preset_add(name="Real Blender Test", operator=operator.bl_idname)
        except RuntimeError as error:
            if "presets.py" in str(error) and "NameError" in str(error):   # Blender's own code, not ours
                cause = next(line for line in str(error).splitlines() if "NameError" in line)
                record(f"preset:{opname}", True, blender_cannot=cause.strip(),
                       stores_file_path=None, text="")
                yield from screen.close_file_browsers()
                continue
            raise
        folder = bpy.utils.user_resource("SCRIPTS", path=os.path.join("presets", "operator", opname))
        preset = os.path.join(folder, "Real_Blender_Test.py")
        text = Path(preset).read_text() if os.path.isfile(preset) else ""
        setattr(operator, option, 1.0)
        with bpy.context.temp_override(**override):
            bpy.ops.script.execute_preset(filepath=preset, menu_idname="WM_MT_operator_presets")
        applied = getattr(operator, option)
        yield from screen.settle(f"preset_{module}")
        record(f"preset:{opname}", bool(text) and abs(applied - value) < 1e-6, preset=preset, applied=applied,
               stores_file_path="op.filepath" in text, text=text)
        yield from screen.close_file_browsers()


def _popup_without_region(screen, name, invoke, minimum, record):
    """``invoke()`` run straight from this timer step (no region current, as from a script's timer): Blender
    must survive, and the popup must show its options; closed with Escape."""
    screen.xdo("mousemove", 650, 450)
    before = yield from screen.settle()
    region = bpy.context.region
    invoke()
    after, lines, box = yield from popup(screen, before, f"no_region_{name}", minimum)
    record(f"no_region:{name}", region is None and len(lines) >= minimum, region_at_invoke=region,
           popup_lines=len(lines), minimum=minimum, box=box, shot=f"no_region_{name}.png")
    screen.key("Escape")
    yield from screen.settle(changed_from=after)


def dialogs_without_region(screen, work, record):
    """Every dialog and popup of the extension invoked (INVOKE_DEFAULT) from a timer, where no region is current:
    the Game Archive dialog and the drop popups of the three importers (invoke_props_dialog, whose layout
    panels crashed Blender there), then the import and export file browsers."""
    bpy.context.view_layer.objects.active = bpy.data.objects["crate"]
    bpy.data.objects["crate"].select_set(True)
    yield from _popup_without_region(screen, "archive", lambda: bpy.ops.import_scene.game_archive(
        "INVOKE_DEFAULT", filepath=str(work / "small.pak")), 6, record)
    for key, name in (("md2", "crate.md2"), ("mdl", "crate.mdl"), ("ms3d", "crate.ms3d"), ("md5", "crate.md5mesh")):
        yield from _popup_without_region(screen, f"import_{key}", lambda key=key, name=name: getattr(
            bpy.ops.import_scene, key)("INVOKE_DEFAULT", filepath=str(work / name), directory=str(work),
                                       files=[{"name": name}]), 4, record)
    for name, opname in DIALOGS:
        module, op = opname.split(".")
        region = bpy.context.region
        getattr(getattr(bpy.ops, module), op)("INVOKE_DEFAULT")
        opened = yield from wait_for(browser_ready(screen), what="the file browser")
        fb = screen.file_browser()
        operator = fb[2].active_operator.bl_idname if fb and fb[2].active_operator else None
        if opened:
            yield from screen.settle(f"no_region_browser_{name}")
        record(f"no_region:browser_{name}", region is None and opened and operator is not None,
               region_at_invoke=region, operator=operator)
        yield from screen.close_file_browsers()


def _fcurves(id_block) -> list:
    """The F-curves of ``id_block``'s action (slotted actions from 4.4, ``Action.fcurves`` before)."""
    action = id_block.animation_data.action if id_block.animation_data else None
    if action is None:
        return []
    if hasattr(action, "layers") and len(action.layers):
        return [c for layer in action.layers for strip in layer.strips for bag in strip.channelbags for c in bag.fcurves]
    return list(action.fcurves)


def import_keeps_scene_rate(screen, work, record):
    """Issue 29: the crate keyed in a 24 fps scene, crate.md2 (10 fps) imported through the MD2 import's file
    browser: the scene stays at 24 fps, the crate's keys are untouched and the model's frames are placed every
    2.4 scene frames (where its shape keys reach 1)."""
    scene = bpy.context.scene
    crate = bpy.data.objects["crate"]
    scene.render.fps, scene.render.fps_base, scene.frame_start, scene.frame_end = 24, 1.0, 1, 20
    crate_keys = sorted((c.data_path, c.array_index, [tuple(p.co) for p in c.keyframe_points]) for c in _fcurves(crate))
    names = {o.name for o in bpy.data.objects}
    fb = yield from open_md2_import(screen, record, "timing:keeps_scene_rate")
    if fb is None:
        return
    win, area, space = fb
    option = space.active_operator.scene_timing if space.active_operator else None
    yield from import_typed(screen, work, win, area, "crate.md2")
    new = [o for o in bpy.data.objects if o.name not in names and o.classic_model.source_format == "MD2"]
    peaks = sorted(p.co[0] for c in (_fcurves(new[0].data.shape_keys) if new else [])
                   for p in c.keyframe_points if p.co[1] == 1.0)
    after = sorted((c.data_path, c.array_index, [tuple(p.co) for p in c.keyframe_points]) for c in _fcurves(crate))
    fps = scene.render.fps / scene.render.fps_base
    record("timing:keeps_scene_rate", len(new) == 1 and fps == 24 and after == crate_keys, option=option,
           scene_fps=fps, frame_range=[scene.frame_start, scene.frame_end], model_frames=peaks,
           crate_keys_unchanged=after == crate_keys, imported=[o.name for o in new])
    yield from screen.close_file_browsers()
    scene.render.fps = 10


SCENARIOS = (make_scene, file_dialogs, menu_import_md2, import_option_by_click, menu_export_md2_shape_keys,
             export_dialog_after_loose_import, archive_dialog, drag_and_drop, collection_exporters, sidebar, presets,
             dialogs_without_region, import_keeps_scene_rate)


# MD3 import options and the sidebar's skin sets (issue 31): their own module, run last
from gui_md3 import SCENARIOS as MD3_SCENARIOS  # noqa: E402

SCENARIOS += MD3_SCENARIOS
