"""Shared settings for the benchmarks.

Set ``NUMSWEEPER_BENCH_SMALL=1`` to shrink every size, so that CI can run
``pytest benchmarks --benchmark-disable`` in seconds and the benchmarks cannot
rot.  Figures in ``benchmarks/README.md`` come from full-size runs.
"""

from __future__ import annotations

import os

SMALL = os.environ.get("NUMSWEEPER_BENCH_SMALL", "") not in ("", "0")


def size(full: int, small: int) -> int:
    """``full`` normally, ``small`` under ``NUMSWEEPER_BENCH_SMALL=1``."""
    return small if SMALL else full
