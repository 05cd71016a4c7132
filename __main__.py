"""``python -m classic_models``: the headless command line (see ``cli``)."""
import sys

from .cli.main import main

if __name__ == "__main__":
    sys.exit(main())
