"""Importers: file -> Blender. Each reads a file with a ``formats`` codec and builds datablocks.

One folder per format (``md2/``, ``mdl/``, ``ms3d/``); what they share (operators, dialogs, where
files come from, scene timing, frame animation, mesh building, the undo-safe transaction) stays here.
"""
