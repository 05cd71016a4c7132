"""Skin images: PCX, the built-in palettes, PNG/TGA writers, the skin atlas and image sizes from headers."""
