"""MD5 scenarios of the GUI session (see gui_session.py; helpers shared with gui_scenarios.py): File > Import >
MD5 by mouse with two options clicked, a drop of an .md5mesh with its anim, the MD5 collection exporter.

Files are written into ``work/md5/``: the session's crate mesh (gui_scenarios.CRATE_MD5MESH), two anims of its
one joint, and the crate's MDL beside them as the classic model (``crate.mdl`` names the anim's frames).
"""
from __future__ import annotations

import shutil

from gui_input import choose_by_click, open_import_entry, press_execute, type_path, view3d_override
from gui_scenarios import CRATE_MD5MESH, MIN_EXPORTER_LINES, MIN_OPTION_LINES, confirm_popup, popup, table
from gui_tools import crop, text_bands, wait_for

import bpy


def _anim(frames: int, turn: float) -> str:
    """An .md5anim of the crate's joint moving along x and turning about z by ``turn`` per frame."""
    import math
    rows = "".join(f"frame {k} {{\n\t{k * 1.5:g} 0 0 0 0 {-math.sin(k * turn / 2):.6f}\n}}\n\n" for k in range(frames))
    bounds = "".join("\t( -8 -8 -8 ) ( 16 16 16 )\n" for _ in range(frames))
    return (f'MD5Version 10\ncommandline ""\n\nnumFrames {frames}\nnumJoints 1\nframeRate 24\n'
            f'numAnimatedComponents 6\n\nhierarchy {{\n\t"root" -1 63 0\n}}\n\nbounds {{\n{bounds}}}\n\n'
            f"baseframe {{\n\t( 0 0 0 ) ( 0 0 0 )\n}}\n\n{rows}")


def md5_files(work):
    """``work/md5/``: crate.md5mesh, crate.md5anim (6 frames, as crate.mdl has), crate_turn.md5anim (3 frames)
    and crate.mdl; the folder."""
    folder = work / "md5"
    folder.mkdir(exist_ok=True)
    (folder / "crate.md5mesh").write_text(CRATE_MD5MESH)
    (folder / "crate.md5anim").write_text(_anim(6, 0.3))
    (folder / "crate_turn.md5anim").write_text(_anim(3, 0.8))
    shutil.copyfile(work / "crate.mdl", folder / "crate.mdl")
    return folder


def _md5_roots(names: set[str]) -> list:
    return [o for o in bpy.data.objects if o.name not in names and o.type == "ARMATURE"
            and o.classic_model.source_format == "MD5"]


def md5_import_menu(screen, work, record):
    """File > Import > MD5 (.md5mesh) with the mouse; its dialog's option column; Anims set to Folder and
    Animations to Actions by clicking their menus; the path typed, Import clicked: the mesh comes in with an
    action per classic animation of crate.mdl (one: its frames are frame1..6) and one for crate_turn.md5anim."""
    folder = md5_files(work)
    names = {o.name for o in bpy.data.objects}
    rows = [row.key for row in table().importable()]             # ours last, then Game Archive
    entry = yield from open_import_entry(screen, record, "md5:menu_import", len(rows) + 1 - rows.index("md5"))
    if entry is None:
        return
    opened, fb, lines = entry
    operator = fb[2].active_operator if fb else None
    if not opened or operator is None or operator.bl_idname != "IMPORT_SCENE_OT_md5":
        record("md5:menu_import", False, operator=operator.bl_idname if operator else None, submenu_lines=len(lines))
        yield from screen.close_file_browsers()
        return
    win, area, _space = fb
    column = screen.region_box(win, screen.region(area, "TOOL_PROPS"))
    _gray, option_lines = yield from screen.until(
        "the MD5 import's option column", lambda gray: len(text_bands(crop(gray, column))),
        lambda count: count >= MIN_OPTION_LINES, name="md5_import_dialog")
    anims, anim_rows = yield from choose_by_click(screen, win, area, operator, "find_anims", "FOLDER", "import_md5")
    layout, layout_rows = yield from choose_by_click(screen, win, area, operator, "animations", "ACTIONS",
                                                     "import_md5")
    yield from type_path(screen, win, area, str(folder) + "/", "crate.md5mesh")
    yield from press_execute(screen, win, area)
    yield from wait_for(lambda: screen.file_browser() is None, what="the file browser to close")
    yield from screen.settle("md5_import_done")
    roots = _md5_roots(names)
    listed = [(item.name, item.action.get("md5_anim_file", "") if item.action else "")
              for item in roots[0].classic_model.animations] if roots else []
    record("md5:menu_import", len(roots) == 1 and option_lines >= MIN_OPTION_LINES and anims == "FOLDER"
           and layout == "ACTIONS", option_lines=option_lines, minimum=MIN_OPTION_LINES, find_anims=anims,
           animations=layout, listed=listed, classic=roots[0].get("md5_classic") if roots else None,
           mode=roots[0].classic_model.animation_mode if roots else None, shot="md5_import_dialog.png",
           rows={str(k): v for k, v in {**anim_rows, **layout_rows}.items()})
    yield from screen.close_file_browsers()


def md5_drop(screen, work, record):
    """An .md5mesh dropped on the 3D viewport (wm.drop_import_file, INVOKE: the MD5 import's popup), confirmed
    with Return: an armature, its mesh, and the anim of its name as its action (Anims: Same Name)."""
    folder = md5_files(work)
    names = {o.name for o in bpy.data.objects}
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base, scene.frame_start = 24, 1.0, 1     # the anims' rate: a frame each
    screen.xdo("mousemove", 650, 450)
    before = yield from screen.settle()
    with view3d_override(screen):
        bpy.ops.wm.drop_import_file("INVOKE_DEFAULT", directory=str(folder), files=[{"name": "crate.md5mesh"}])
    after, lines, box = yield from popup(screen, before, "md5_drop", 4)
    yield from confirm_popup(screen, box, after)
    yield from wait_for(lambda: _md5_roots(names), what="the dropped crate.md5mesh in the scene")
    roots = _md5_roots(names)
    action = roots[0].animation_data.action if roots and roots[0].animation_data else None
    blocks = [c.name for c in roots[0].children if c.type == "MESH"] if roots else []
    record("md5:drop", len(lines) >= 4 and len(roots) == 1 and len(blocks) == 1 and action is not None,
           popup_lines=len(lines), box=box, blocks=blocks, shot="md5_drop.png",
           action=action.get("md5_anim_file") if action is not None else None)


def md5_collection_exporter(screen, work, record):
    """The dropped crate (armature and mesh) in a collection of its own; Collection properties > Exporters >
    Add > MD5: the exporter draws the operator's options; Export through it (Frames: Timeline at every scene
    frame, where the import placed the anim's frames) writes the pair, read back by the test."""
    roots = [o for o in bpy.data.objects if o.type == "ARMATURE" and o.classic_model.source_format == "MD5"
             and o.classic_model.animation_mode == "TIMELINE" and o.animation_data and o.animation_data.action]
    if not roots:
        record("md5:collection_exporter", False, problem="no dropped crate.md5mesh to export")
        return
    scene = bpy.context.scene
    first, last = (int(round(f)) for f in roots[-1].animation_data.action.frame_range)
    scene.frame_start, scene.frame_end = first, last        # the anim's frames on the timeline
    collection = bpy.data.collections.new("MD5 crate")
    bpy.context.scene.collection.children.link(collection)
    for obj in [roots[-1], *roots[-1].children]:
        for owner in list(obj.users_collection):
            owner.objects.unlink(obj)
        collection.objects.link(obj)
    win, area, _region = screen.area("VIEW_3D")
    area.type = "PROPERTIES"
    yield from screen.drawn()
    region = screen.region(area, "WINDOW")
    layer = bpy.context.view_layer
    layer.active_layer_collection = layer.layer_collection.children[collection.name]
    area.spaces.active.context = "COLLECTION"
    target = work / "collection.md5mesh"
    try:
        before = yield from screen.settle()
        with bpy.context.temp_override(window=win, area=area, region=region):
            bpy.ops.collection.exporter_add(name="IO_FH_classic_models_md5")
        exporter = collection.exporters[-1]
        exporter.is_open = True
        box = screen.region_box(win, region)
        _after, added = yield from screen.until(
            "the MD5 exporter's options", lambda gray: len(text_bands(crop(gray, box))) - len(
                text_bands(crop(before, box))), lambda added: added >= MIN_EXPORTER_LINES,
            name="md5_collection_exporter", changed_from=before)
        exporter.export_properties.filepath = str(target)
        exporter.export_properties.frame_rate = "SCENE"
        with bpy.context.temp_override(window=win, area=area, region=region):
            bpy.ops.collection.exporter_export(index=len(collection.exporters) - 1)
        record("md5:collection_exporter", added >= MIN_EXPORTER_LINES and target.is_file()
               and target.with_suffix(".md5anim").is_file(), lines_added=added, minimum=MIN_EXPORTER_LINES,
               written=target.is_file(), shot="md5_collection_exporter.png", frames=[first, last])
    finally:
        area.type = "VIEW_3D"
        scene.render.fps = 10
    yield from screen.drawn()


SCENARIOS = (md5_import_menu, md5_drop, md5_collection_exporter)
