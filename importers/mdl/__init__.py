"""MDL import: the model, its poses as shape keys and its paletted skins."""
