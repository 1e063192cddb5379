"""`/fault/panic` and `/fault/spin` (SPEC §9), routed only when `CONCUR_FAULTS=1` (`app.main`).

Nothing here handles the fault: the panic reaches the app's handlers as any
bug would, and the spin holds the event loop it runs on. Both are `async def`
like every other handler here: FastAPI would run a plain `def` on AnyIO's
thread pool, which would take the spin off the loop.
"""

from __future__ import annotations

import time

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse

from app.worlds import DECIMAL

router = APIRouter()

MAX_SPIN_MS = 10_000


def spin_ms(text: str) -> int:
    """`ms` clamped to 0..10000, read as `queries` is; anything that is not a decimal integer counts as 0."""
    if not DECIMAL.fullmatch(text):
        return 0
    return min(max(int(text), 0), MAX_SPIN_MS)


@router.get("/fault/panic")
async def panic() -> None:
    raise RuntimeError("fault: /fault/panic raised in its handler")


@router.get("/fault/spin", response_class=PlainTextResponse)
async def spin(ms: str = "") -> str:
    deadline = time.monotonic() + spin_ms(ms) / 1000
    while time.monotonic() < deadline:  # no await: the loop serves nothing else meanwhile
        pass
    return "OK"
