"""Classic Game Models: Quake II MD2, Quake MDL, MilkShape 3D MS3D, Quake III MD3 and MD5 import and export.

Registration only; the codecs live in ``formats``, the Blender side in ``importers``,
``exporters`` and ``ui``. Blender modules are imported inside ``register`` so that test tools can
import this package (and the bpy-free ``formats``) without Blender.
"""
from __future__ import annotations

import warnings

# The Blender versions this extension is tested on (tools/dev.sh test: 4.2, 4.5 and 5.2 LTS), as in
# blender_manifest.toml: blender_version_min, and blender_version_max (exclusive).
BLENDER_MIN = (4, 2, 0)
BLENDER_MAX = (5, 3, 0)


def version_problem(version: tuple[int, ...]) -> str | None:
    """Why Blender ``version`` is outside the tested range, or None."""
    shown = ".".join(map(str, version[:3]))
    if tuple(version[:3]) < BLENDER_MIN:
        return f"Blender {shown} is too old: this extension needs Blender 4.2 or newer"
    if tuple(version[:3]) >= BLENDER_MAX:
        return f"Blender {shown} is newer than this extension was tested with (4.2 to 5.2)"
    return None


_registered: tuple[type, ...] = ()     # what register() registered: unregister() removes that


def _classes():
    """Every format's import and export operator (the rows of ``formats/table.py``), the Game Archive's."""
    from .exporters import operators as export_operators
    from .formats import table
    from .importers import archive_operator
    from .importers import operators as import_operators
    archive_operator.share_options()          # the options of the formats in the table now
    return (*import_operators.operator_classes(table.FORMATS), *archive_operator.CLASSES,
            *export_operators.operator_classes(table.FORMATS))


def register() -> None:
    import bpy
    problem = version_problem(bpy.app.version)
    if problem and bpy.app.version < BLENDER_MIN:
        raise RuntimeError(problem)
    if problem:
        warnings.warn(f"classic_models: {problem}", stacklevel=2)
    from .exporters.sampling import action_list
    from .ui import fullbright, menus, panel, properties
    properties.register()
    action_list.register()
    global _registered
    _registered = _classes()
    for cls in _registered:
        bpy.utils.register_class(cls)
    panel.register()
    fullbright.register()
    menus.register()


def unregister() -> None:
    import bpy

    from .ui import fullbright, menus, panel, properties
    menus.unregister()
    fullbright.unregister()
    panel.unregister()
    from .exporters.sampling import action_list
    for cls in reversed(_registered):
        bpy.utils.unregister_class(cls)
    action_list.unregister()
    properties.unregister()
