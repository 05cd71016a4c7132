"""What an MD2 or MDL export of an MD3's objects leaves out, for the report: those formats have one mesh
and no tags, so the MD3's tags (``tag_*`` empties, or the ones an MD3 import made) are not written and
its surfaces become one mesh, their shaders the model's skins (:mod:`..common.md3.contract`).
Beside the format folders: it reads the MD3 contract on behalf of the MD2 and MDL exporters."""
from __future__ import annotations

import bpy

from ..common.contract import MD3_TAG_INDEX
from ..common.md3.surfaces import surface_count
from ..formats.message_text import quoted

SHOWN = 3


def md3_left_out(objects: list[bpy.types.Object], target: str) -> list[str]:
    """One line per kind of thing ``objects`` hold that a ``target`` ("MD2", "MDL") file cannot."""
    tags = [o.name for o in objects if o.type == "EMPTY"
            and (o.get(MD3_TAG_INDEX) is not None or o.name.lower().startswith("tag_"))]
    surfaces = sum(surface_count(o.data) for o in objects if o.type == "MESH")     # a merged mesh holds several
    lines = []
    if tags:
        shown = ", ".join(quoted(n) for n in tags[:SHOWN]) + (" ..." if len(tags) > SHOWN else "")
        lines.append(f"{len(tags)} tag(s) not written ({shown}): {target} has no tags")
    if surfaces > 1:
        lines.append(f"the MD3's {surfaces} surfaces are merged into one {target} mesh; their shaders become "
                     "its skins")
    return lines
