"""What a person sees: every dialog's options, report lines with counts, readable messages.
Named ``interface``, not ``ui``: the checkout (on ``sys.path``) has its own ``ui`` package."""
