"""``python -m numsweeper``: the same as the ``numsweeper`` command."""

from .cli import main

raise SystemExit(main())
