"""Quake III MD3: records, reader/writer, vertex encoding, limits, .skin and animation.cfg."""
