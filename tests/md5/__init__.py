"""MD5 (Doom 3): the mesh and anim codec against a small reader written here, byte-for-byte round trips, skinning
worked out by hand, refusals."""
