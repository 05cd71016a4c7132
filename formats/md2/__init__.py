"""Quake II MD2: the codec, GL commands, the vertex lattice and the player conventions."""
