"""Skins as images: PCX, LMP, palettes and colour matching, the skin limits, atlases and packing of several materials,
flat skins."""
