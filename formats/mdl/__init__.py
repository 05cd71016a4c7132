"""Quake MDL: the codec, its MD16 and RAPO variants and the texture coordinates."""
