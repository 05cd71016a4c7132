"""PAK and PK3 archives, game folders and skin lookup: the readers, the Game Archive import, skins found by name,
folder, prefix and size."""
