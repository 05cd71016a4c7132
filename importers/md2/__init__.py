"""MD2 import: the model, its frames as shape keys and its skins."""
