"""Exporters: Blender -> file. A builder turns objects into a ``formats`` model, a writer stores it."""
