"""Import across formats: one action per animation, animations grouped by frame names, scene timing, names that
fill their field."""
