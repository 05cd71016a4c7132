"""MDL's options of ``convert`` (its row's ``cli_options``): what they add to the import and export
operators' properties, by the properties' names. Added to ``convert``'s option groups by
``cli/main.py``; they set the property wherever the target or source operator has it."""
from __future__ import annotations

import argparse
from pathlib import Path


def _palette_choice(text: str) -> str | Path:
    """'quake' / 'hexen2' name a built-in palette; anything else is a palette lump's path."""
    return text.upper() if text.lower() in ("quake", "hexen2") else Path(text)


def add_options(imports: argparse._ArgumentGroup, exports: argparse._ArgumentGroup) -> None:
    imports.add_argument("--palette", type=_palette_choice,
                         help="MDL: quake, hexen2 or a 768-byte palette lump to decode and convert skins with "
                              "(palette / palette_path)")
    exports.add_argument("--target", choices=("quake", "modern"), dest="limits",
                         help="MDL: limits to check, Quake's or source ports' (target)")
    exports.add_argument("--skin-width", choices=("pad", "refuse"),
                         help="MDL: pad a skin width that is not a multiple of 4, or refuse it (skin_width_rule)")
    exports.add_argument("--mdl-format", choices=("idpo", "md16", "rapo"),
                         help="MDL: flavour to write: idpo (Quake), md16 (16-bit: QuakeForge, FTE) or rapo "
                              "(Hexen II mission pack); default: an MDL input's own, else idpo (mdl_format)")
    exports.add_argument("--player-colours", choices=("auto", "on", "off"),
                         help="MDL: may new skin colours use 16-31 and 96-111, which Quake recolours to a "
                              "player's shirt and pants: auto (a model named player whose skin uses them), "
                              "on, off (player_colours)")


Request = tuple[str, object]        # (the option as typed, the property's value)


def requests(args: argparse.Namespace) -> tuple[dict[str, Request], dict[str, Request]]:
    """(import options, export options) the arguments ask for: property name -> (option, value)."""
    imports: dict[str, Request] = {}
    exports: dict[str, Request] = {}
    if isinstance(args.palette, str):
        imports["palette"] = exports["palette"] = ("--palette", args.palette)
    elif args.palette is not None:
        palette = str(args.palette.resolve())
        imports["palette_path"] = exports["palette_path"] = ("--palette", palette)
    if args.limits:
        exports["target"] = ("--target", args.limits.upper())
    if args.skin_width:
        exports["skin_width_rule"] = ("--skin-width", args.skin_width.upper())
    if args.mdl_format:
        exports["mdl_format"] = ("--mdl-format", args.mdl_format.upper())
    if args.player_colours:
        exports["player_colours"] = ("--player-colours", args.player_colours.upper())
    return imports, exports
