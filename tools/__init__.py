"""Developer tools: loading the checkout into the bpy wheel, demo, benchmark, building the zip."""
