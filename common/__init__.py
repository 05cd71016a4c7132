"""Blender-side helpers and names shared by importers and exporters (the import/export contract)."""
