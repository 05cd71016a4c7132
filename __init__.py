"""Classic Game Models: Quake II MD2, Quake MDL and MilkShape 3D MS3D import and export.

Registration only; the codecs live in ``formats``, the Blender side in ``importers``,
``exporters`` and ``ui``. Blender modules are imported inside ``register`` so that test tools can
import this package (and the bpy-free ``formats``) without Blender.
"""
from __future__ import annotations


def _classes():
    from .exporters import operators as export_operators
    from .importers import operators as import_operators
    return (*import_operators.CLASSES, *export_operators.CLASSES)


def register() -> None:
    import bpy
    from .exporters import action_list
    from .ui import menus, panel, properties
    properties.register()
    action_list.register()
    for cls in _classes():
        bpy.utils.register_class(cls)
    panel.register()
    menus.register()


def unregister() -> None:
    import bpy
    from .ui import menus, panel, properties
    menus.unregister()
    panel.unregister()
    from .exporters import action_list
    for cls in reversed(_classes()):
        bpy.utils.unregister_class(cls)
    action_list.unregister()
    properties.unregister()
