"""Everything ``bpy.data`` holds, as plain values: every data-block with every RNA property, nested
structs and collections followed a few levels deep, data-blocks named rather than followed.

Two states compare equal when a script reading the properties could not tell them apart; what no
script sees (memory addresses, ``session_uid``, which differs after every read of a file) is left out.
"""
from __future__ import annotations

import warnings

import bpy

# left out: what differs after every read of a file, the evaluated copies (reading a depsgraph's objects
# crashes bpy 5.2 once the data changed) and paint settings bpy 4.2 crashes on (tool slots, UV sculpt)
SKIPPED = {"rna_type", "bl_rna", "session_uid", "original", "is_evaluated", "depsgraph", "tool_slots", "uv_sculpt"}
# screens and workspaces: bpy 4.2 crashes reading their editors' settings in the background
UI_COLLECTIONS = ("screens", "workspaces")
MAX_ITEMS = 200      # a longer collection is compared by its length


def _value(struct, prop, depth: int, seen: set[tuple[str, int]]) -> object:
    try:
        value = getattr(struct, prop.identifier)
    except Exception as exc:  # a property some state cannot read (an unset context member)
        return f"<{type(exc).__name__}>"
    if prop.type == "POINTER":
        return _reference(value, depth, seen)
    if prop.type == "COLLECTION":
        items = list(value)
        if len(items) > MAX_ITEMS:
            return ("items", len(items))
        return [_reference(item, depth, seen) for item in items]
    if getattr(prop, "is_array", False) or prop.type in ("BOOLEAN", "INT", "FLOAT") and hasattr(value, "__len__"):
        try:
            return tuple(_plain(v) for v in value)
        except TypeError:
            return _plain(value)
    if isinstance(value, set):
        return tuple(sorted(value))
    return _plain(value)


def _plain(value: object) -> object:
    if hasattr(value, "__len__") and not isinstance(value, str):
        return tuple(_plain(v) for v in value)
    return value


def _custom(value: object) -> object:
    """A custom property's value as plain Python (groups as dicts, arrays as lists, data-blocks named)."""
    for convert in ("to_dict", "to_list"):
        if hasattr(value, convert):
            return getattr(value, convert)()
    return ("ID", type(value).__name__, value.name) if isinstance(value, bpy.types.ID) else value


def _reference(value, depth: int, seen: set[tuple[str, int]]) -> object:
    if value is None:
        return None
    if isinstance(value, bpy.types.ID):
        return ("ID", type(value).__name__, value.name)
    if depth <= 0:
        return ("struct", type(value).__name__)
    return struct_state(value, depth - 1, seen)


def struct_state(struct, depth: int = 6, seen: set[tuple[str, int]] | None = None) -> object:
    """``struct``'s properties as a dict (a struct met before on this path as its type name)."""
    seen = set() if seen is None else seen
    key = (type(struct).__name__, struct.as_pointer())     # a struct's first member has its address
    if key in seen:
        return ("seen", key[0])
    seen = seen | {key}
    state = {prop.identifier: _value(struct, prop, depth, seen)
             for prop in struct.bl_rna.properties if prop.identifier not in SKIPPED}
    if isinstance(struct, bpy.types.ID):
        state["custom properties"] = {name: _custom(value) for name, value in struct.items()}
    return state


def blend_state(collections: tuple[str, ...], depth: int = 6) -> dict:
    """Collection name -> data-block name -> its properties, for the ``bpy.data`` ``collections``; the
    user interface's (:data:`UI_COLLECTIONS`) by name only; ``file``: the current file's path."""
    with warnings.catch_warnings():      # reading deprecated properties (Scene.use_nodes in 5.x) is fine here
        warnings.simplefilter("ignore", DeprecationWarning)
        state = {name: {block.name: struct_state(block, 0 if name in UI_COLLECTIONS else depth)
                         for block in getattr(bpy.data, name)}
                 for name in collections}
    state["file"] = {"filepath": bpy.data.filepath, "is_saved": bpy.data.is_saved, "use_autopack": bpy.data.use_autopack}
    return state


def differences(before: object, after: object, path: str = "") -> list[str]:
    """Where two states differ (``scenes/Scene/frame_end: 1 != 40``), at most 20."""
    found: list[str] = []
    if isinstance(before, dict) and isinstance(after, dict):
        for key in list(dict.fromkeys([*before, *after])):
            if key not in before or key not in after:
                found.append(f"{path}/{key}: only {'after' if key in after else 'before'}")
            else:
                found += differences(before[key], after[key], f"{path}/{key}")
    elif isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for index, (a, b) in enumerate(zip(before, after)):
            found += differences(a, b, f"{path}[{index}]")
    elif before != after:
        found.append(f"{path}: {str(before)[:80]} != {str(after)[:80]}")
    return found[:20]
