"""The quick start's steps (docs/quick-start.md) as a modder does them, last in the GUI session.

First Edit > Preferences > Get Extensions, and its Install from Disk… given the zip the stage built: Blender
installs the extension again over the copy ``extension install-file`` put there. A Quake model to start from (``work/quickstart/sample.mdl``: the demo's Suzanne with her three animations,
tools/demo.py) is written first; then by mouse and keyboard: File > Import > Quake Model (.mdl); View >
Frame Selected (numpad .); the sidebar's Model tab; Space plays the animations and Esc stops them; a click
selects the model, Tab, A, S 1.5 Return, Tab scales it in Edit Mode; File > Export > Quake Model (.mdl) and
File > Export > Quake III Model (.md3) write it. Each step records a check ``quick:<step>``; the screenshots
the manual shows are listed with the box to crop (tools/readme_pictures.py crops them into docs/).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from gui_input import open_file_submenu, pick_from_menu, press_execute, show_model_tab, type_path, view3d_override
from gui_scenarios import table
from gui_tools import changed_box, wait_for

import bpy

SRC = Path(__file__).resolve().parents[2]
EDIT_SCALE = 1.5


def demo():
    if str(SRC) not in sys.path:
        sys.path.insert(0, str(SRC))
    from tools import demo as module
    return module


def sample_model(screen, folder: Path) -> Path:
    """The demo's sample (Suzanne, idle/nod/wave, 30 frames at 10 fps) exported as ``folder/sample.mdl``;
    the scene emptied again, as a modder's Blender is before the import."""
    d = demo()
    scene = bpy.context.scene
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    scene.render.fps, scene.render.fps_base, scene.frame_start, scene.frame_end = 10, 1.0, 1, d.SAMPLE_LAST_FRAME
    for name, frame in d.SAMPLE_MARKERS:
        scene.timeline_markers.new(name, frame=frame)
    with view3d_override(screen):
        head = d.add_suzanne(bpy.context)
        d.add_nod_rig(bpy.context, head)
    d.add_idle_breathing(head)
    d.add_ear_wave(head)
    image = d.save_skin_png(folder / "sample.png", d.sample_skin_pixels(d.SAMPLE_SKIN_SIZE))
    head.data.materials.append(d.skin_material(image, "sample.png"))
    d.select_only(bpy.context, head)
    with view3d_override(screen):
        bpy.ops.export_scene.mdl(filepath=str(folder / "sample.mdl"), scale=d.SAMPLE_EXPORT_SCALE)
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    scene.timeline_markers.clear()
    scene.frame_set(1)
    return folder / "sample.mdl"


def key_positions(model) -> dict[str, np.ndarray]:
    """Each shape key's positions, by name."""
    found = {}
    for key in model.data.shape_keys.key_blocks:
        co = np.empty(len(key.data) * 3, dtype=np.float32)
        key.data.foreach_get("co", co)
        found[key.name] = co.reshape(-1, 3)
    return found


def area_box(screen, win, area) -> tuple[int, int, int, int]:
    """(x, y, width, height) of a whole area on the screen, y from the top."""
    ox, oy = screen.window_origin(win)
    return ox + area.x, oy + win.height - area.y - area.height, area.width, area.height


def file_menu_entry(screen, record, check: str, which: int, key: str):
    """File > Import (``which`` 0) or Export (1) by mouse, the entry of format ``key`` clicked; returns the
    file browser (window, area, space) and the box of the menus on the screen, or (None, box)."""
    rows = [r.key for r in (table().importable() if which == 0 else table().exportable())]
    from_end = len(rows) + (1 if which == 0 else 0) - rows.index(key)     # Import ends with Game Archive
    screen.xdo("mousemove", 700, 500)
    before = yield from screen.settle()
    label = f"quick_{'import' if which == 0 else 'export'}_{key}"
    found = yield from open_file_submenu(screen, which, label)
    if found is None:
        screen.key("Escape", "Escape")
        record(check, False, problem="File submenu not found")
        return None, None
    sub, lines, row_y = found
    menus = changed_box(before, screen.grab(), within=(0, 0, 1600, 960))
    if menus is not None:                                  # from the window's corner: the File button shows
        menus = (0, 0, menus[0] + menus[2], menus[1] + menus[3])
    yield from pick_from_menu(screen, sub, lines, row_y, from_end=from_end)
    opened = yield from wait_for(lambda: screen.file_browser() is not None
                                 and screen.region(screen.file_browser()[1], "TOOL_PROPS").width > 50,
                                 what="the file browser")
    return (screen.file_browser() if opened else None), menus


def preferences_window():
    """(window, area, WINDOW region) of the open Preferences window, or None."""
    for win in bpy.context.window_manager.windows[1:]:
        for area in win.screen.areas:
            if area.type == "PREFERENCES":
                return win, area, next(r for r in area.regions if r.type == "WINDOW")
    return None


def install_from_disk(screen, work, record):
    """Edit > Preferences > Get Extensions (``screen.userpref_show``, what the menu item runs), then Install
    from Disk… (``extensions.package_install_files``, the item of the section's ⌄ menu) with the stage's zip
    typed into its file browser: the installed copy is replaced (a file left in it is gone) and enabled."""
    zips = sorted((work.parent.parent / "dist").glob("*.zip"))     # session.sh: BASE/dist, OUT = BASE/out
    installed = Path(bpy.utils.user_resource("EXTENSIONS", path="user_default")) / "classic_models"
    marker = installed / "left_by_the_quick_start_test.txt"
    if not zips or not installed.is_dir():
        record("quick:install", False, problem="no zip in dist/ or no installed copy", zips=[str(z) for z in zips],
               installed=str(installed))
        return
    marker.write_text("the install from disk replaces the folder\n")
    with view3d_override(screen):
        bpy.ops.screen.userpref_show("INVOKE_DEFAULT", section="EXTENSIONS")
    yield from wait_for(lambda: preferences_window() is not None, what="the Preferences window")
    prefs = preferences_window()
    if prefs is None:
        record("quick:install", False, problem="no Preferences window")
        return
    win, area, region = prefs
    ox, oy = screen.window_origin(win)
    box = (ox, oy, win.width, win.height)
    yield from screen.settle("quick_preferences")
    section = bpy.context.preferences.active_section
    with bpy.context.temp_override(window=win, area=area, region=region):
        bpy.ops.extensions.package_install_files("INVOKE_DEFAULT")
    yield from wait_for(lambda: screen.file_browser() is not None, what="the Install from Disk file browser")
    fb = screen.file_browser()
    operator = fb[2].active_operator.bl_idname if fb and fb[2].active_operator else None
    if fb is not None:
        fwin, farea, _space = fb
        yield from type_path(screen, fwin, farea, str(zips[0].parent) + "/", zips[0].name)
        yield from screen.settle("quick_install_browser")
        yield from press_execute(screen, fwin, farea)
        yield from wait_for(lambda: screen.file_browser() is None, what="the file browser to close")
    replaced = yield from wait_for(lambda: not marker.exists() and (installed / "blender_manifest.toml").is_file(),
                                   what="the extension installed again")
    enabled = "bl_ext.user_default.classic_models" in bpy.context.preferences.addons
    yield from screen.settle("quick_installed")
    record("quick:install", section == "EXTENSIONS" and operator == "EXTENSIONS_OT_package_install_files"
           and replaced and enabled, section=section, operator=operator, zip=zips[0].name, replaced=replaced,
           enabled=enabled, box=box, shot="quick_installed.png")
    count = len(bpy.context.window_manager.windows)
    with bpy.context.temp_override(window=win):
        bpy.ops.wm.window_close()
    yield from wait_for(lambda: len(bpy.context.window_manager.windows) < count, what="the Preferences to close")
    yield from screen.drawn()


def quick_start(screen, work, record):
    yield from install_from_disk(screen, work, record)
    folder = work / "quickstart"
    folder.mkdir(exist_ok=True)
    source = sample_model(screen, folder)
    yield from screen.drawn()

    # 2. Import: File > Import > Quake Model (.mdl), the file typed, Import clicked
    fb, menus = yield from file_menu_entry(screen, record, "quick:import", 0, "mdl")
    if fb is None:
        record("quick:import", False, problem="no file browser opened", menus=menus)
        return
    win, area, space = fb
    operator = space.active_operator.bl_idname if space.active_operator else None
    yield from type_path(screen, win, area, str(folder) + "/", source.name)
    yield from press_execute(screen, win, area)
    yield from wait_for(lambda: screen.file_browser() is None, what="the file browser to close")
    model = next((o for o in bpy.data.objects if o.type == "MESH" and o.classic_model.source_format == "MDL"), None)
    keys = model.data.shape_keys.key_blocks if model and model.data.shape_keys else []
    record("quick:import", operator == "IMPORT_SCENE_OT_mdl" and model is not None, operator=operator,
           menu_box=menus, shot="menu_quick_import_mdl.png", object=model.name if model else None,
           shape_keys=len(keys), animations=[a.name for a in model.classic_model.animations] if model else [])
    if model is None:
        return

    # 3. Animate: Frame Selected, the sidebar's Model tab, Space plays, Esc stops
    view_win, view_area, view_region = screen.area("VIEW_3D")
    vx, vy, vw, vh = screen.region_box(view_win, view_region)
    screen.xdo("mousemove", vx + vw // 2, vy + vh // 2)
    yield from screen.drawn()
    screen.key("KP_Decimal")
    yield from screen.drawn()
    for _ in range(2):                                   # room for the model grown in Edit Mode
        screen.xdo("click", "5")
        yield from screen.drawn()
    yield from show_model_tab(screen, view_win, view_area)
    ui = screen.region(view_area, "UI")
    yield from wait_for(lambda: ui.active_panel_category == "Model", what="the sidebar's Model tab")
    yield from screen.settle("quick_animate")
    record("quick:sidebar", ui.active_panel_category == "Model", tab=ui.active_panel_category,
           box=area_box(screen, view_win, view_area), shot="quick_animate.png")
    # a click on the model selects it (the sidebar's opening may have clicked empty space)
    yield from screen.click(vx + vw // 2, vy + vh // 2)
    yield from wait_for(lambda: model.select_get(), timeout=30, what="the model selected by a click")
    start = bpy.context.scene.frame_current
    screen.key("space")
    played = yield from wait_for(lambda: bpy.context.scene.frame_current != start, what="the timeline to play")
    playing = view_win.screen.is_animation_playing
    screen.key("Escape")
    stopped = yield from wait_for(lambda: not view_win.screen.is_animation_playing, what="playback to stop")
    yield from screen.drawn()
    record("quick:play", played and playing and stopped and model.select_get(), started_at=start,
           selected=model.select_get(), back_at=bpy.context.scene.frame_current)

    # 3. Edit: Tab, A, S 1.5 Return, Tab: Basis scaled, every frame's key moved with it
    before = key_positions(model)
    screen.key("Tab")
    yield from wait_for(lambda: model.mode == "EDIT", what="Edit Mode")
    screen.key("a", "s")
    screen.type(str(EDIT_SCALE))
    screen.key("Return")
    yield from screen.settle("quick_edit")
    screen.key("Tab")
    yield from wait_for(lambda: model.mode == "OBJECT", what="Object Mode")
    after = key_positions(model)
    basis = model.data.shape_keys.key_blocks[0].name
    grown = np.ptp(after[basis], axis=0) / np.ptp(before[basis], axis=0)
    moved = after[basis] - before[basis]
    followed = max(float(np.abs(after[n] - before[n] - moved).max()) for n in before)
    record("quick:edit", bool(np.allclose(grown, EDIT_SCALE, atol=1e-3)) and followed < 1e-3,
           grown=grown.round(4).tolist(), frames_off_by=followed, box=area_box(screen, view_win, view_area),
           shot="quick_edit.png")

    # 4. Export: File > Export > Quake Model (.mdl), then Quake III Model (.md3), for DarkPlaces and OpenArena
    for key in ("mdl", "md3"):
        target = folder / f"edited.{key}"
        fb, menus = yield from file_menu_entry(screen, record, f"quick:export_{key}", 1, key)
        if fb is None:
            record(f"quick:export_{key}", False, problem="no file browser opened", menus=menus)
            continue
        win, area, space = fb
        operator = space.active_operator.bl_idname if space.active_operator else None
        ox, oy = screen.window_origin(win)
        dialog = (ox, oy, win.width, win.height)          # read while the window is open
        yield from type_path(screen, win, area, str(folder) + "/", target.name)
        yield from screen.settle(f"quick_export_{key}")
        yield from press_execute(screen, win, area)
        yield from wait_for(lambda: screen.file_browser() is None, what="the file browser to close")
        yield from wait_for(target.is_file, timeout=30, what=f"{target.name} written")
        record(f"quick:export_{key}", operator == f"EXPORT_SCENE_OT_{key}" and target.is_file(), operator=operator,
               written=target.name if target.is_file() else None, menu_box=menus,
               shot=f"quick_export_{key}.png", box=dialog)
    yield from screen.drawn()


SCENARIOS = (quick_start,)
