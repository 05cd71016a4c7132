"""Argument types the commands share."""
from __future__ import annotations

import argparse
from pathlib import Path


def given_path(text: str) -> Path:
    """A path argument that names something: an empty one (``convert "$MODEL"`` with the variable unset)
    would be this folder, and ``convert`` would then take every model below it; ``.`` says so on purpose."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path (is a shell variable unset?): name a file or folder, "
                                         "or . for the current folder")
    return Path(text)


def given_input(text: str) -> str:
    """An input (a file, folder, archive or ARCHIVE:MEMBER) that is not empty, as typed."""
    given_path(text)
    return text
