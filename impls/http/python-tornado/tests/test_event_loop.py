"""spec/POLICIES.md §3: every process' IOLoop runs on uvloop, the event loop Uvicorn uses too."""

from __future__ import annotations

import asyncio

import uvloop
from tornado.ioloop import IOLoop

import server


async def loops() -> tuple[type, type]:
    return type(asyncio.get_running_loop()), type(IOLoop.current().asyncio_loop)


def test_the_launcher_runs_each_ioloop_on_uvloop():
    assert server.run(loops()) == (uvloop.Loop, uvloop.Loop)
