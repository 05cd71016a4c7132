"""What an import hands back to its operator."""
from __future__ import annotations

from dataclasses import dataclass, field

import bpy


@dataclass
class ImportResult:
    objects: list[bpy.types.Object] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    infos: list[str] = field(default_factory=list)
    files: int = 1          # model files read (a player's three parts, levels of detail; 0: another import's)
