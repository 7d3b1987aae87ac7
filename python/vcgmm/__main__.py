"""``python -m vcgmm ...``: the same as the ``vcgmm`` command."""

import sys

from .cli.main import main

if __name__ == "__main__":
    sys.exit(main())
