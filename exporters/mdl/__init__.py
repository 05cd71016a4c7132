"""MDL export: model build, skins and the file (``export``)."""
