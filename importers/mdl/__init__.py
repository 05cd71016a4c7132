"""Importers: file -> Blender. Each reads a file with a ``formats`` codec and builds datablocks."""
