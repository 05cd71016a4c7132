"""A toy model format for tests/house/test_format_table.py: one table row (``format_rows``), a codec, an
``info`` reader and a ``convert`` option (``--toy-scale``, :class:`options`), all without Blender; its
operators, dialog and sidebar part are in toy_format_blender. Nothing of it is in the extension: a format
is its row and its own code.

File layout (little-endian)::

    char magic[4] "TOY1"; uint32 version 1; uint32 num_vertices; float32 xyz[num_vertices][3];
    uint32 num_triangles; uint32 corners[num_triangles][3]

A process started with :func:`site_folder` first on its PYTHONPATH (and tests/ on it) takes the row at start,
before its own code runs: ``python -m classic_models info`` and ``convert``'s Blender workers. The extension
itself imports nothing the environment names.
"""
from __future__ import annotations

import struct

import numpy as np

MAGIC, VERSION = b"TOY1", 1


SITECUSTOMIZE = """# written by tests/support/toy_format.py: the toy row in every table of formats this process imports
# (the command line's classic_models.formats.table, a Blender worker's bl_ext.<repo>.classic_models.formats.table)
import importlib.abc
import importlib.util
import sys


class _TableLoader(importlib.abc.Loader):
    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        from support.toy_format import format_rows
        for row in format_rows(module):
            module.add_row(row)


class _TableFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if not name.endswith(".formats.table"):
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(name)
        finally:
            sys.meta_path.insert(0, self)
        if spec is not None and spec.loader is not None:
            spec.loader = _TableLoader(spec.loader)
        return spec


sys.meta_path.insert(0, _TableFinder())
"""


def site_folder(folder):
    """``folder`` holding a ``sitecustomize.py`` that adds the toy row (Python imports it at start)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(SITECUSTOMIZE)
    return folder


def format_rows(table) -> list:
    return [table.FormatRow("toy", "Toy Model", "Toy Model", (".toy",), (MAGIC,), (VERSION,),
                            "none: 2**32 vertices", "support.toy_format:parse_toy", "support.toy_format_blender:importer",
                            "support.toy_format_blender:exporter", "support.toy_format:inspect_toy",
                            import_dialog="support.toy_format_blender:dialog",
                            sidebar="support.toy_format_blender:sidebar", cli_options="support.toy_format:options")]


class options:           # the row's cli_options (support.toy_format:options)
    """``convert --toy-scale FACTOR``: the toy exporter's ``toy_scale``."""

    @staticmethod
    def add_options(imports, exports) -> None:
        exports.add_argument("--toy-scale", type=float, help="toy: multiply the positions written (toy_scale)")

    @staticmethod
    def requests(args) -> tuple[dict, dict]:
        return {}, ({"toy_scale": ("--toy-scale", args.toy_scale)} if args.toy_scale is not None else {})


def parse_toy(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """(positions float32 (n, 3), corners uint32 (m, 3)); ValueError for anything else."""
    if data[:4] != MAGIC or struct.unpack_from("<I", data, 4)[0] != VERSION:
        raise ValueError("not a toy model")
    count, = struct.unpack_from("<I", data, 8)
    positions = np.frombuffer(data, "<f4", count * 3, 12).reshape(-1, 3)
    end = 12 + count * 12
    triangles, = struct.unpack_from("<I", data, end)
    corners = np.frombuffer(data, "<u4", triangles * 3, end + 4).reshape(-1, 3)
    if end + 4 + corners.nbytes != len(data) or (corners.size and corners.max() >= count):
        raise ValueError("bad toy model")
    return positions, corners


def serialize_toy(positions, corners) -> bytes:
    positions = np.asarray(positions, "<f4").reshape(-1, 3)
    corners = np.asarray(corners, "<u4").reshape(-1, 3)
    return (MAGIC + struct.pack("<II", VERSION, len(positions)) + positions.tobytes()
            + struct.pack("<I", len(corners)) + corners.tobytes())


def inspect_toy(info, path, data: bytes, load_skins: bool, name_encoding: str = "AUTO") -> None:
    """What ``info`` says of a toy model: its version and counts."""
    positions, corners = parse_toy(data)
    info.version = VERSION
    info.counts = {"vertices": len(positions), "triangles": len(corners)}
