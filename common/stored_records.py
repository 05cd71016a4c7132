"""Reading back what an import stored on Blender data (:mod:`.contract`) without trusting its type.

An import stores its records as bytes in custom properties; another add-on, a script or a hand edit
may leave something else under the same name. :func:`stored_bytes` gives the bytes, or None for
anything that is not bytes, so the export treats that record as gone (rebuilt, as for a model made in
Blender) instead of failing on it; :func:`stored_strings`, :func:`stored_floats` and :func:`stored_json`
do the same for lists of names, numbers and JSON text.
"""
from __future__ import annotations

import json
from typing import Any


def stored_bytes(block, key: str) -> bytes | None:
    """``block[key]`` when it holds bytes, else None (absent, or another type)."""
    value = block.get(key) if block is not None else None
    return bytes(value) if isinstance(value, (bytes, bytearray)) else None


def stored_strings(block, key: str) -> list[str] | None:
    """``block[key]`` as a list of strings when it is one, else None."""
    value = block.get(key) if block is not None else None
    if isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
        return list(value)
    return None


def stored_floats(block, key: str, count: int) -> list[float] | None:
    """``block[key]`` as ``count`` floats when it holds that many numbers, else None."""
    value: Any = block.get(key) if block is not None else None     # anything: None or a string raise below
    try:
        numbers = [float(item) for item in value]
    except (TypeError, ValueError):
        return None
    return numbers if len(numbers) == count else None


def stored_json(block, key: str):
    """``block[key]`` parsed as JSON when it is a JSON string, else None."""
    value = block.get(key) if block is not None else None
    if not isinstance(value, str):
        return None
    try:
        return json.loads(value)
    except ValueError:
        return None


def stored_group(block, key: str):
    """``block[key]`` when it is a group of named values (what an import stores as a dict), else None."""
    value = block.get(key) if block is not None else None
    return value if hasattr(value, "keys") and hasattr(value, "get") else None


def stored_int(block, key: str, default):
    """``block[key]`` as an int when it is a number, else ``default``."""
    value = block.get(key, default) if block is not None else default
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else default
