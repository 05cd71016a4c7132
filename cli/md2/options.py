"""MD2's options of ``convert`` (its row's ``cli_options``; see cli/mdl/options.py)."""
from __future__ import annotations

import argparse


def add_options(imports: argparse._ArgumentGroup, exports: argparse._ArgumentGroup) -> None:
    exports.add_argument("--skins", choices=("pcx", "png", "tga", "names"),
                         help="MD2: write skins as 8-bit PCX in the Quake II palette (default), true-colour "
                              "PNG or TGA, or store the names only (skins)")


def requests(args: argparse.Namespace) -> tuple[dict[str, tuple[str, object]], dict[str, tuple[str, object]]]:
    """(import options, export options) the arguments ask for: property name -> (option, value)."""
    return {}, ({"skins": ("--skins", args.skins.upper())} if args.skins else {})
