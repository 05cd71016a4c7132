"""Real input for the GUI session: the File menu by mouse, typed paths, the dialog's buttons, options set by
clicking wherever a dialog draws them."""
from __future__ import annotations

import numpy as np
from gui_tools import changed_box, crop, text_bands, turns, wait_for

import bpy

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
    """The operator's options, listed by its registered type (``bpy.ops.<module>.<name>.get_rna_type()``,
    as tests/support/dialog_stand_ins.py does): how the test sees what a click changed."""
    module, _, op_name = operator.bl_idname.partition("_OT_")
    options = getattr(getattr(bpy.ops, module.lower()), op_name).get_rna_type().properties
    props = operator.properties
    values = {}
    for name, prop in options.items():
        if name in ("rna_type", "filepath", "directory", "filename") or prop.type in ("POINTER", "COLLECTION"):
            continue
        value = getattr(props, name)
        values[name] = tuple(value) if getattr(prop, "is_array", False) else value
    return values


def open_file_menu(screen, label: str):
    """Click File in the top bar (again when the first click only focused the window); returns the
    menu's box on screen and the screen with it open, or None."""
    screen.xdo("mousemove", 700, 500)
    closed = yield from screen.settle()
    for attempt in range(3):
        yield from screen.click(*FILE_MENU)
        opened, menu = yield from screen.until(
            "the File menu to open", lambda gray: changed_box(closed, gray, within=(0, 22, 500, 700)),
            lambda box: box is not None and box[3] > 200, name=f"menu_{label}_file", changed_from=closed,
            timeout=30)
        if menu is not None and menu[3] > 200:
            return menu, opened
        screen.xdo("mousemove", 700, 500)
        yield from screen.drawn()
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
        # the item lit and, past Blender's submenu delay (0.2 s, a timer of its loop), its submenu open: the
        # settled screen spans more than that and several loop turns (a greyed-out item does not light up)
        hovered = yield from screen.settle(tag=False)
        # a submenu opens beside the menu at the item's row (the status bar at the bottom changes too: left out)
        sub = changed_box(opened, hovered, within=(mx + mw + 2, 0, 700, 960))
        if sub is None or sub[2] < 100 or sub[0] > mx + mw + 40 or not (y - 80 < sub[1] < y + 20):
            continue
        lines, count = text_bands(crop(hovered, sub)), -1
        while len(lines) != count:                   # drawn whole: the same lines on two settled screens
            count = len(lines)
            hovered = yield from screen.settle(tag=False)
            sub = changed_box(opened, hovered, within=(mx + mw + 2, 0, 700, 960)) or sub
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
    yield from screen.drawn()
    screen.xdo("mousemove", sx + 60, sy + (top + bottom) // 2)
    yield from screen.drawn()
    yield from screen.click(sx + 60, sy + (top + bottom) // 2)


def open_import_entry(screen, record, check: str, from_end: int):
    """File > Import with the mouse, its ``from_end``-th line from the submenu's end clicked, the file
    browser awaited: (whether it opened, ``screen.file_browser()``, the submenu's lines); None after
    recording ``check`` as failed when the submenu was not found."""
    found = yield from open_file_submenu(screen, 0, "import")
    if found is None:
        screen.key("Escape", "Escape")
        record(check, False, problem="File > Import submenu not found")
        return None
    sub, lines, row_y = found
    yield from pick_from_menu(screen, sub, lines, row_y, from_end=from_end)
    opened = yield from wait_for(browser_ready(screen), what="the file browser")
    return opened, screen.file_browser(), lines


def show_model_tab(screen, win, area):
    """The 3D view's sidebar opened with N over the viewport (a click on empty grid first closes a report
    popup an earlier step left: it takes key presses) and its Model tab shown (the last tab of its strip,
    clicked when another is active)."""
    vx, vy, vw, vh = screen.region_box(win, screen.region(area, "WINDOW"))
    for _ in range(4):
        if screen.region(area, "UI").width > 50:
            break
        yield from screen.click(vx + vw - 160, vy + vh - 60)
        yield from screen.drawn()
        screen.key("n")
        yield from wait_for(lambda: screen.region(area, "UI").width > 50, timeout=30)
        yield from screen.drawn()
    ui = screen.region(area, "UI")
    if ui.active_panel_category == "Model":
        return
    ux, uy, uw, uh = screen.region_box(win, ui)
    gray = yield from screen.settle()
    strip = (ux + uw - 22, uy, 20, uh)
    tabs = []
    for top, bottom in text_bands(crop(gray, strip), bright=100, min_height=2):   # inactive tabs: dim text
        if tabs and top - tabs[-1][1] < 8:         # the letters of one vertical tab label
            tabs[-1] = (tabs[-1][0], bottom)
        else:
            tabs.append((top, bottom))
    if tabs:
        yield from screen.click(strip[0] + 10, uy + (tabs[-1][0] + tabs[-1][1]) // 2)


def type_path(screen, win, area, directory: str, filename: str):
    """Type the file name into the file name field (bottom), then the folder into the path field (top)."""
    ex, ey, ew, eh = screen.region_box(win, screen.region(area, "EXECUTE"))
    yield from screen.click(ex + int(ew * 0.25), ey + eh // 2, clicks=2)
    yield from screen.drawn()
    screen.key("ctrl+a")
    screen.type(filename)
    screen.key("Return")
    yield from screen.drawn()
    ux, uy, uw, uh = screen.region_box(win, screen.region(area, "UI"))
    yield from screen.click(ux + int(uw * 0.35), uy + uh // 2, clicks=2)
    yield from screen.drawn()
    screen.key("ctrl+a")
    screen.type(directory)
    screen.key("Return")
    yield from screen.drawn()
    screen.shot("typed_path")


def press_execute(screen, win, area):
    """Click the dialog's Import/Export button (the right-most button of the bottom bar)."""
    ex, ey, ew, eh = screen.region_box(win, screen.region(area, "EXECUTE"))
    yield from screen.click(ex + ew - 60, ey + eh // 2)
    yield from screen.drawn()
    if screen.file_browser() is not None:
        yield from screen.click(ex + ew - 60, ey + eh // 2)   # the first click may only end the text edit
        yield from screen.drawn()


def has_widget(gray, box, top: int, bottom: int) -> bool:
    """Whether a line of the option column has something in its right half (a field, menu or checkbox with
    its text); a sub-panel header's line has only its title on the left."""
    px, py, pw, _ph = box
    part = gray[py + top:py + bottom, px + int(pw * 0.45):px + pw - 8].astype(int)
    return int((abs(part - int(np.median(part))) > 20).sum()) >= 5


def probe_rows(screen, win, area, op, wanted: str, target: str, label: str):
    """Set option ``wanted`` to ``target`` in the option column by real input, wherever it is drawn. Each line
    with a widget, top-down: Ctrl+Wheel on it (Blender's 'step the value'; numbers answer), else a click: a
    checkbox toggles; a dropdown opens with the current item under the mouse and the item below it is
    clicked; a text field starts editing (a click in the file list ends it). Return is never pressed (it
    would run the dialog). When the option is not found, sub-panel headers are clicked open and the lines
    visited again. Options changed on the way are put back. Returns (value reached, {row y: what changed})."""
    box = screen.region_box(win, screen.region(area, "TOOL_PROPS"))
    px, py, pw, _ph = box
    lx, ly, lw, lh = screen.region_box(win, screen.region(area, "WINDOW"))
    neutral = (lx + lw // 2, ly + lh - 15)                       # empty rows at the bottom of the file list
    mapping = {}
    for attempt in range(2):
        gray = yield from screen.settle(f"probe_{label}_{attempt}")
        lines = text_bands(crop(gray, box))[1:]                  # [0]: Operator Presets
        headers = [py + (t + b) // 2 for t, b in lines if not has_widget(gray, box, t, b)]
        for top, bottom in lines:
            if not has_widget(gray, box, top, bottom):
                continue
            y, x = py + (top + bottom) // 2, px + int(pw * 0.75)
            before = option_values(op)
            screen.xdo("mousemove", x - 3, y)
            yield from screen.drawn()
            screen.xdo("mousemove", x, y)
            yield from screen.drawn()
            screen.xdo("keydown", "ctrl", "click", "5", "keyup", "ctrl")
            yield from turns()
            after_wheel = yield from screen.settle()
            changed = [k for k, v in option_values(op).items() if v != before[k]]
            if not changed:
                yield from screen.click(x, y)
                # a checkbox, a menu or a text field being edited shows at once; a label does not change
                clicked = yield from screen.settle(changed_from=after_wheel, timeout=20, note=False)
                changed = [k for k, v in option_values(op).items() if v != before[k]]
                shape = changed_box(after_wheel, clicked)
                if not changed and shape is not None:
                    bx, by, bw, bh = shape
                    items = [by + (t + b) // 2 for t, b in text_bands(crop(clicked, shape))]
                    below = [iy for iy in items if iy > y + 8]
                    if bh >= 40 and below:                        # a dropdown menu: its next item
                        yield from screen.click(x, below[0])
                    else:                                         # a text field being edited
                        yield from screen.click(*neutral)
                    yield from screen.settle(f"probe_{label}_{attempt}_{y}")
                    changed = [k for k, v in option_values(op).items() if v != before[k]]
            mapping[y] = changed
            if wanted in changed and getattr(op, wanted) == target:
                return target, mapping
            for name in changed:                                  # put back what this probe changed
                setattr(op, name, before[name])
        if attempt == 0:
            for y in reversed(headers):                           # open closed sub-panels (bottom-up: rows
                yield from screen.click(px + 30, y)               # above keep their place), look again
                yield from screen.drawn()
    return getattr(op, wanted), mapping


def choose_by_click(screen, win, area, operator, option: str, target: str, label: str):
    """``option`` set to ``target`` by real input (probe_rows); returns (value reached, rows visited)."""
    value, mapping = yield from probe_rows(screen, win, area, operator, option, target, label)
    yield from screen.settle(f"{label}_{option}_chosen")
    return value, mapping
