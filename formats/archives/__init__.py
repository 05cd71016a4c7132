"""Game archives (PACK .pak, zip .pk3), the game folder's search order and the skin lookup on disk."""
