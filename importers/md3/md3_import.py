"""File > Import > Quake III Model (.md3): one file, or a Quake III player folder from its lower.md3
(:mod:`.md3_player`); what one file becomes is :mod:`.md3_build`."""
from __future__ import annotations

import os
from pathlib import Path

import bpy

from ..file_source import LooseSource, ModelSource, as_source
from ..results import ImportResult
from ..scene_timing import plan_timing, timing_note
from ..transaction import datablock_transaction
from .md3_build import Md3Build, Md3ImportOptions, add_lods, add_model, read_md3_source
from .md3_player import PARTS, import_player, player_parts
from .md3_skins import ShaderImages

__all__ = ["Md3ImportOptions", "import_md3"]


def import_md3(context: bpy.types.Context, path: Path | ModelSource, options: Md3ImportOptions) -> ImportResult:
    """Read ``path`` (a file or an archive member) and build it in the active collection, all or nothing;
    a Quake III player's ``lower.md3`` brings its upper and head parts assembled on their tags."""
    source = as_source(path)
    result = ImportResult()
    if options.assemble_player and brought_by_lower(source, options.exclude):
        result.infos.append(f"{source.label}: imported with lower.md3 beside it (Assemble Player)")
        result.files = 0            # counted by the lower part's import
        return result
    data, model = read_md3_source(source)
    timing = plan_timing(context.scene, options.scene_timing)
    images = ShaderImages(source)
    build = Md3Build(context, options, result, timing, images, context.view_layer.active_layer_collection.collection)
    try:
        with datablock_transaction(context.scene):
            parts = player_parts(source, images) if options.assemble_player else None
            if parts is not None:
                root = import_player(build, source, data, model, parts)
            else:
                root = add_model(build, source, data, model)
                if options.load_lods:
                    add_lods(build, source, root)
    finally:
        images.close()
    if note := timing_note(source.label, timing, build.fps):
        result.infos.append(note)
    result.objects.append(root)
    return result


def brought_by_lower(source: ModelSource, exclude: tuple[str, ...]) -> bool:
    """``upper.md3`` or ``head.md3`` of a player folder whose ``lower.md3`` the same import also reads
    (``exclude``: the files or archive members it was given): the lower part brings it."""
    if source.name.lower() not in ("upper.md3", "head.md3"):
        return False
    if isinstance(source, LooseSource):
        folder = source.path.parent
        given = {os.path.normcase(os.path.abspath(e)) for e in exclude}
        return (os.path.normcase(os.path.abspath(folder / "lower.md3")) in given
                and all((folder / f"{part}.md3").is_file() for part in PARTS))
    lower = f"{source.member.rpartition('/')[0]}/lower.md3".lstrip("/").lower()
    return lower in {e.lower() for e in exclude}
