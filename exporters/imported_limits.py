"""An imported model exports to the limits its own file already needed.

A model made for a source port (a DarkPlaces mod's ``g_rock.mdl``: 1,313 vertices) imports fine; its
untouched export must not be refused over vanilla Quake's 1,024. The import records the file's counts
(``FILE_COUNTS`` on the mesh); a count over the chosen target's limit is allowed up to what the file
itself had, with a warning naming the engines that refuse it. A model that grew past its file's count
(or a model made in Blender, which has none) is held to the target as before.

Engine limits named in the warnings: id's GLQuake ``gl_model.h`` (``MAXALIASVERTS 1024``,
``MAXALIASTRIS 2048``, ``MAXALIASFRAMES 256``, ``MAX_SKINS 32``; ``Mod_LoadAliasModel`` stops with
"model %s has too many vertices"), WinQuake's software renderer ``r_local.h`` and FitzQuake/QuakeSpasm
``gl_model.h`` (2000 vertices; QuakeSpasm 4096 triangles: "johnfitz -- was 1024", "ericw -- was
2048"), uHexen2 (2000 vertices), Quake II ``qfiles.h`` (``MAX_VERTS 2048``, ``MAX_TRIANGLES 4096``,
``MAX_FRAMES 512``, ``MAX_MD2SKINS 32``, checked by ``Mod_LoadAliasModel``).
"""
from __future__ import annotations

from ..common.file_counts import own_counts  # noqa: F401  (re-exported for the builders)

Row = tuple[str, int, int]      # (what, count, limit), as exporters/limits.py's over_limits takes them

# what -> (limit, the engines that refuse more), for the warning; the smallest limit first
QUAKE_ENGINES = {
    "vertices": ((1024, "GLQuake"), (2000, "WinQuake, FitzQuake and QuakeSpasm")),
    "triangles": ((2048, "GLQuake"), (4096, "QuakeSpasm")),
    "frames": ((256, "GLQuake and QuakeSpasm"),),
    "skins": ((32, "GLQuake and QuakeSpasm"),),
    "pixels of skin height": ((480, "GLQuake"),),
}
QUAKE2_ENGINES = {what: ((limit, "Quake II"),) for what, limit in
                  (("vertices", 2048), ("triangles", 4096), ("frames", 512), ("skins", 32))}


def within_own_file(rows: tuple[Row, ...] | list[Row], own: dict[str, int]) -> tuple[list[Row], list[Row]]:
    """``rows`` with each limit raised to the file's own count where the count is over the limit but
    not over what the file had; also the rows so allowed (for :func:`kept_warning`)."""
    checked, allowed = [], []
    for what, count, limit in rows:
        if limit < count <= own.get(what, 0):
            allowed.append((what, count, limit))
            checked.append((what, count, count))
        else:
            checked.append((what, count, limit))
    return checked, allowed


def kept_warning(label: str, allowed: list[Row], engines: dict, where: str) -> str | None:
    """One line for the counts allowed over ``where``'s limits because the imported file had them."""
    if not allowed:
        return None
    parts = []
    for what, count, limit in allowed:
        refusing = [name for bound, name in engines.get(what, ()) if count > bound] or [where]
        parts.append(f"{count} {what} (limit {limit}; refused by {', '.join(refusing)})")
    return (f"{label}: {'; '.join(parts)}: over {where}'s limits as its imported file already was, so it is "
            "written to the file's own limits; engines with those limits will not load it")
