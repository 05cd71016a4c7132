"""Export across formats: frame sources (actions, frame rate, end pose, still frames), modes and selections, paths,
limits checked before sampling, names that do not fit, normals, refusals and atomic writes."""
