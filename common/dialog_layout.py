"""Building blocks of the import and export dialogs' ``draw()``: collapsible groups and greyed rows.

Groups are Blender's layout panels (``UILayout.panel(idname, default_closed)``, Blender 4.1+, as the
glTF exporter of Blender 4.2+ draws its Include / Transform / Animation groups); they work in the file
browser's option column and in Collection Exporters. Blender keeps each group's open state by its
idname. Where a layout has no panel to hold them (``panel`` raises RuntimeError), a group is a box
with its title instead, so the options are drawn either way.
"""
from __future__ import annotations


def group(layout, idname: str, title: str, default_closed: bool = False):
    """The layout to draw a group's options into, or None while the user has it folded."""
    try:
        header, body = layout.panel(idname, default_closed=default_closed)
    except RuntimeError:
        body = layout.box()
        body.label(text=title)
        return body
    header.label(text=title)
    return body


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
