"""Blender UI: object settings, File menu entries, drag-and-drop handlers, sidebar panel."""
