"""Launcher: read SPEC §1's environment, bind the socket, then serve in this process or fork workers.

`CONCUR_CORES=1` serves here, one IOLoop. `CONCUR_CORES=N > 1` is Tornado's
multi-process recipe: `bind_sockets` once, start the store's owner, then
`fork_processes(N)`: this process stays behind as the supervisor (restarting
a worker that dies) and each worker runs its own IOLoop on the shared socket.
Every IOLoop runs on uvloop (`uvloop.run`, uvloop's own entry point), the
asyncio loop Uvicorn runs on too (spec/POLICIES.md §3; the README says what
it did for Tornado: nothing measurable).

SIGTERM to the launcher ends `fork_processes`' wait; the launcher then closes
the lifeline pipe every worker and the owner watch (so each stops and
exits) and reaps them before it exits. If the launcher dies some other way,
the pipe closes all the same. SIGTERM sent to
the whole process group ends the same way.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import time
from collections.abc import Coroutine
from typing import Any, NoReturn, TypeVar

import tornado.netutil
import tornado.process
import uvloop

from app import config, store
from app.main import serve

T = TypeVar("T")

BACKLOG = 4096  # SPEC §1; Tornado's default is 128
REAP_TIMEOUT_S = 5.0


def main() -> int:
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s [%(process)d] %(name)s %(levelname)s %(message)s")
    # tornado.access logs every 4xx as a warning; the verifier sends thousands on purpose.
    logging.getLogger("tornado.access").setLevel(logging.ERROR)
    try:
        settings = config.from_env()
    except config.ConfigError as exc:
        print(f"python-tornado: {exc}", file=sys.stderr)
        return 2
    sockets = tornado.netutil.bind_sockets(settings.port, "127.0.0.1", backlog=BACKLOG)
    port = sockets[0].getsockname()[1]
    print(f"python-tornado: listening on http://127.0.0.1:{port} with {settings.cores} process(es)", flush=True)
    if settings.cores == 1:
        run(serve(sockets, settings, store.LocalStore()))
        return 0
    return run_processes(sockets, settings)


def run(main: Coroutine[Any, Any, T]) -> T:
    """Runs one process' IOLoop to the end of `main`, on uvloop (uvloop's own `asyncio.run`)."""
    return uvloop.run(main)


def _exit_on_sigterm(signum: int, frame: object) -> NoReturn:
    raise SystemExit(0)


def run_processes(sockets: list, settings: config.Settings) -> int:
    launcher = os.getpid()
    address = store.owner_address()
    # Every worker and the owner watch `lifeline`; only the launcher keeps `keepalive` open.
    lifeline, keepalive = os.pipe()
    _owner, authkey = store.start_owner(address, lifeline, keepalive)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        # Returns only in a worker, with its task id (0..N-1; a worker restarted in place of a dead one gets the same).
        task_id = tornado.process.fork_processes(settings.cores)
    except SystemExit:
        if os.getpid() != launcher:
            return 0  # SIGTERM reached a new worker before it could install its own handler
        # The launcher: SIGTERM, or every worker exited by itself.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        os.close(keepalive)
        # Before the reaping: a worker's exit connects to the owner, and must find no socket to wait on.
        store.close_owner_socket()
        reap_workers()
        return 0
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the worker's IOLoop installs its own
    os.close(keepalive)
    store.close_owner_socket()
    run(serve(sockets, settings, store.SharedStore(address, authkey), lifeline, task_id))
    return 0


def reap_workers() -> None:
    """Waits for the workers, which stop as soon as the lifeline reads end-of-file, and the owner."""
    deadline = time.monotonic() + REAP_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.05)


if __name__ == "__main__":
    sys.exit(main())
