"""Launcher: read SPEC §1's environment, start the store's owner when there are several workers, run Uvicorn.

`CONCUR_CORES=1` serves in this process. `CONCUR_CORES=N > 1` is Uvicorn's
`--workers N`: this process becomes Uvicorn's supervisor, binds the socket and
spawns N workers that share it, replacing any that dies. SIGTERM stops
Uvicorn (both modes); the store's owner is then shut down, or has already
exited on the same SIGTERM sent to the whole process group.
"""

from __future__ import annotations

import sys

import uvicorn

from app import config, store


def main() -> int:
    try:
        settings = config.from_env()
    except config.ConfigError as exc:
        print(f"python-fastapi: {exc}", file=sys.stderr)
        return 2
    owner = store.start_owner() if settings.cores > 1 else None
    try:
        uvicorn.run(
            "app.main:app",
            host="127.0.0.1",
            port=settings.port,
            workers=settings.cores,
            # Uvicorn's production pair, named rather than left to its auto-detection (spec/POLICIES.md §3).
            loop="uvloop",
            http="httptools",
            backlog=4096,  # SPEC §1; Uvicorn's default is 2048
            access_log=False,
            timeout_keep_alive=75,  # Uvicorn's 5 s would cut connections that pause between benchmark phases
            timeout_graceful_shutdown=2,  # SIGTERM: in-flight requests get 2 s, long polls included
        )
    finally:
        if owner is not None:
            owner.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
