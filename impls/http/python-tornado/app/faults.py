"""`/fault/panic` and `/fault/spin` (SPEC §9), routed only when `CONCUR_FAULTS=1` (`app.main`).

Nothing here handles the fault: the panic reaches Tornado's `_execute` as any
bug would (a 500 through `write_error`), and the spin holds the IOLoop it
runs on. Tornado calls a plain `def get` on the IOLoop, as it does `/`'s.
"""

from __future__ import annotations

import time

from app.base import BaseHandler
from app.worlds import DECIMAL

MAX_SPIN_MS = 10_000


def spin_ms(text: str) -> int:
    """`ms` clamped to 0..10000, read as `queries` is; anything that is not a decimal integer counts as 0."""
    if not DECIMAL.fullmatch(text):
        return 0
    return min(max(int(text), 0), MAX_SPIN_MS)


class PanicHandler(BaseHandler):
    SUPPORTED_METHODS = ("GET",)

    def get(self) -> None:
        raise RuntimeError("fault: /fault/panic raised in its handler")


class SpinHandler(BaseHandler):
    SUPPORTED_METHODS = ("GET",)

    def get(self) -> None:
        deadline = time.monotonic() + spin_ms(self.get_query_argument("ms", "")) / 1000
        while time.monotonic() < deadline:  # no yield: the IOLoop serves nothing else meanwhile
            pass
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.write("OK")
