"""The counts an imported file had (vertices, triangles, frames, skins, skin height), kept on its mesh
so an export may keep to the limits the file already needed (``exporters/imported_limits.py``)."""
from __future__ import annotations

import json

from .contract import FILE_COUNTS


def record_counts(mesh, **counts: int) -> None:
    """Store the imported file's counts on its mesh; keys as the exporters' limit messages name them
    (``pixels_of_skin_height`` -> ``pixels of skin height``)."""
    mesh[FILE_COUNTS] = json.dumps({what.replace("_", " "): int(n) for what, n in counts.items()})


def own_counts(obj) -> dict[str, int]:
    """The counts the object's imported file had, {} for a model made in Blender."""
    data = getattr(obj, "data", None)
    raw = data.get(FILE_COUNTS) if data is not None and hasattr(data, "get") else None
    try:
        counts = json.loads(str(raw)) if raw else {}
    except ValueError:
        return {}
    if not isinstance(counts, dict):
        return {}
    return {str(k): v for k, v in counts.items() if isinstance(v, int)}
