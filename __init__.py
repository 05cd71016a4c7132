"""Classic Game Models: Quake II MD2, Quake MDL and MilkShape 3D MS3D import and export.

Registration only; the codecs live in ``formats``, the Blender side in ``importers``,
``exporters`` and ``ui``.
"""
from __future__ import annotations

import bpy

from .exporters import operators as export_operators
from .importers import operators as import_operators
from .ui import menus, panel, properties

_OPERATORS = (*import_operators.CLASSES, *export_operators.CLASSES)


def register() -> None:
    properties.register()
    for cls in _OPERATORS:
        bpy.utils.register_class(cls)
    panel.register()
    menus.register()


def unregister() -> None:
    menus.unregister()
    panel.unregister()
    for cls in reversed(_OPERATORS):
        bpy.utils.unregister_class(cls)
    properties.unregister()
