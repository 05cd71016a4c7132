"""Building blocks of the import and export dialogs' ``draw()``: collapsible groups and greyed rows.

Groups are Blender's layout panels (``UILayout.panel(idname, default_closed)``, Blender 4.1+, as the
glTF exporter of Blender 4.2+ draws its Include / Transform / Animation groups); they work in the file
browser's option column and in Collection Exporters. Blender keeps each group's open state by its
idname. Where a layout has no panel to hold them (``panel`` raises RuntimeError), a group is a box
with its title instead, so the options are drawn either way.

A popup built while no region is current (an operator invoked with ``INVOKE_DEFAULT`` from a timer or
a startup script: ``invoke_props_dialog`` draws at once, with ``context.region`` None) must not call
``UILayout.panel``: Debian's Blender 5.2.2 and 4.3.2 crash (segmentation fault) instead of raising.
:func:`region_current` gives such an invoke a region, so the dialog has its groups; :func:`group` draws
boxes wherever no region is current all the same.
"""
from __future__ import annotations

from contextlib import contextmanager


def _drawing_context():
    """``bpy.context`` where Blender draws; None in background mode (the bpy module, tests), which draws nothing."""
    import bpy
    return None if bpy.app.background else bpy.context


def panels_possible() -> bool:
    """False while Blender draws with no region current: there ``UILayout.panel`` crashes it."""
    context = _drawing_context()
    return context is None or context.region is not None


@contextmanager
def region_current(context):
    """Make a region current for a dialog invoked where none is: the biggest 3D viewport's (else the
    biggest area's) main region of the context's window. Nothing changes where a region is current."""
    window = getattr(context, "window", None)
    if context.region is not None or window is None:
        yield
        return
    areas = sorted(window.screen.areas, key=lambda a: (a.type != "VIEW_3D", -a.width * a.height))
    for area in areas:
        region = next((r for r in area.regions if r.type == "WINDOW"), None)
        if region is not None:
            with context.temp_override(window=window, area=area, region=region):
                yield
            return
    yield

def group(layout, idname: str, title: str, default_closed: bool = False):
    """The layout to draw a group's options into, or None while the user has it folded."""
    if not panels_possible():
        return _box(layout, title)
    try:
        header, body = layout.panel(idname, default_closed=default_closed)
    except RuntimeError:
        return _box(layout, title)
    header.label(text=title)
    return body


def _box(layout, title: str):
    body = layout.box()
    body.label(text=title)
    return body


def wrapped_label(layout, text: str, width: int, icon: str = "NONE") -> list[str]:
    """A long message as several label lines of a ``width`` px wide dialog (a label is cut to ``abc...xyz``
    where it does not fit): about 8 px a character at Blender's default font and any UI scale (dialog
    widths scale with it); the lines are returned."""
    import textwrap
    lines = textwrap.wrap(text, max(20, width // 8 - 3), break_long_words=True) or [""]
    column = layout.column(align=True)
    for index, line in enumerate(lines):
        column.label(text=line, icon=icon if index == 0 else "BLANK1")
    return lines


def applies_when(layout, applies: bool):
    """A column whose options are greyed out (still editable) unless ``applies``."""
    column = layout.column()
    column.active = applies
    return column


def in_file_browser(context) -> bool:
    """True in the file browser's option column; False in a Collection Exporter (Properties editor)
    or a popup."""
    return getattr(getattr(context, "space_data", None), "type", "") == "FILE_BROWSER"


def start(layout) -> None:
    """Labels left of the fields, no animation dots: how Blender's own file dialogs look."""
    layout.use_property_split = True
    layout.use_property_decorate = False
