"""The house: layers and module sizes, the test layout, the ``blender`` marker, the package, the supported Blender
versions, the manual's figures, the developer tools and the demo."""
