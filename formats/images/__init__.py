"""Skin images: PCX, the built-in palettes, PNG/TGA writers and the skin atlas."""
