"""MDL export: model build."""
