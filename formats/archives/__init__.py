"""Game archives (PACK .pak, zip .pk3) and the game folder's search order."""
