"""The Tornado application and one process's IOLoop serving it until SIGTERM (or the launcher's exit)."""

from __future__ import annotations

import asyncio
import logging
import signal
import socket
from pathlib import Path

from tornado.httpserver import HTTPServer
from tornado.web import Application

from app import base
from app.config import Settings
from app.database import Database
from app.faults import PanicHandler, SpinHandler
from app.hashing import Hasher
from app.hello import HelloHandler, JsonHandler, LongPollHandler, PageHandler
from app.passwords import SetPasswordHandler, VerifyPasswordHandler
from app.store import Store
from app.users import GetUserHandler, SetUserHandler
from app.worlds import FortunesHandler, QueriesHandler, SingleQueryHandler, SlowQueryHandler, UpdatesHandler

log = logging.getLogger("concur")

# In-flight requests (long polls included) get this long after SIGTERM.
SHUTDOWN_GRACE_S = 1.0


TEMPLATES = Path(__file__).parent / "templates"


def make_app(config: Settings, store: Store, hasher: Hasher, database: Database) -> Application:
    stores = {"store": store}
    db = {"database": database, "config": config}
    # SPEC §9: without CONCUR_FAULTS=1, /fault/* are unknown paths (404).
    faults = [(r"/fault/panic", PanicHandler), (r"/fault/spin", SpinHandler)] if config.faults else []
    return Application(
        [
            (r"/", HelloHandler),
            (r"/json", JsonHandler),
            (r"/page", PageHandler, {"config": config}),
            (r"/longPoll", LongPollHandler, {"config": config}),
            (r"/password/set/.*", SetPasswordHandler, {**stores, "hasher": hasher}),
            (r"/password/verify/.*", VerifyPasswordHandler, {**stores, "hasher": hasher}),
            (r"/user/set/.*", SetUserHandler, stores),
            (r"/user/get/.*", GetUserHandler, stores),
            (r"/db", SingleQueryHandler, db),
            (r"/queries", QueriesHandler, db),
            (r"/updates", UpdatesHandler, db),
            (r"/fortunes", FortunesHandler, db),
            (r"/slowdb", SlowQueryHandler, db),
            *faults,
        ],
        default_handler_class=base.NotFoundHandler,
        template_path=TEMPLATES,
    )


async def serve(sockets: list[socket.socket], config: Settings, store: Store, lifeline: int | None = None, task_id: int = 0) -> None:
    """Serves on the launcher's sockets until SIGTERM, or until `lifeline` (a pipe from
    the launcher) reads end-of-file because the launcher closed it or died. `task_id` is
    this process's index among the workers (`fork_processes`' return), which sizes its
    share of the database pool."""
    # Buffered bodies (GET routes) are bounded too; the POST routes stream theirs (app.base).
    database = await Database.open(config, task_id)
    server = HTTPServer(make_app(config, store, Hasher(config.bcrypt_cost), database), max_body_size=base.MAX_BODY)
    server.add_sockets(sockets)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    if lifeline is not None:
        loop.add_reader(lifeline, lambda: (loop.remove_reader(lifeline), stop.set()))
    await stop.wait()
    server.stop()
    try:
        await asyncio.wait_for(server.close_all_connections(), SHUTDOWN_GRACE_S)
    except asyncio.TimeoutError:
        log.warning("connections still open %.1f s after SIGTERM; exiting anyway", SHUTDOWN_GRACE_S)
    await database.close()
