"""Headless command line for model collections: ``python -m classic_models {info,check,convert}``.

``info`` and ``check`` read files with the bpy-free codecs; ``convert`` runs the extension's own
import and export operators in ``bpy`` worker processes. See :mod:`.main` for the options.
"""
