"""The command line (``python -m classic_models``) run as a user runs it: info, check, convert, list, pack.
Named ``command_line``, not ``cli``: the checkout (on ``sys.path``) has its own ``cli`` package."""
