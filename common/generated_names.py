"""Names the product gives Blender data itself: a material after the file and its skin slot
(``<model>_skin0``), an object after the file. Each is stamped with the name as made
(``["classic_model_made_name"]``), so an exporter can tell it from a name the user typed while it is
unchanged, and shorten it where a format's field is smaller (MS3D's 32-byte names) instead of refusing."""
from __future__ import annotations

from .contract import MADE_NAME


def mark_made(id_block) -> None:
    """Record that ``id_block``'s current name was made by the product."""
    id_block[MADE_NAME] = id_block.name


def is_made(id_block) -> bool:
    """True while ``id_block`` (a material, object, bone...) keeps the name the product made for it."""
    return id_block is not None and id_block.get(MADE_NAME) == id_block.name
