"""MD2 export: model build, file and skins, Quake II player folders."""
