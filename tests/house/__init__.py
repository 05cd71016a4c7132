"""The house: layers and module sizes, the test layout, the ``blender`` marker, the package, the supported Blender
versions, the table of formats (a toy row), the manual's figures, the developer tools and the demo."""
