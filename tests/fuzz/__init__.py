"""Fuzzing the parsers (no Blender) and the import operators."""
