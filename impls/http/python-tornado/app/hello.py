"""`/`, `/json`, `/page` and `/longPoll`: the wrk hello-worlds, the blog's file server and the thesis' long poll."""

from __future__ import annotations

import asyncio
import itertools

from app.base import BaseHandler
from app.config import Settings


class HelloHandler(BaseHandler):
    SUPPORTED_METHODS = ("GET",)

    def get(self) -> None:
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.write("Hello, World!")


class JsonHandler(BaseHandler):
    SUPPORTED_METHODS = ("GET",)

    def get(self) -> None:
        self.write({"message": "Hello, World!"})  # Tornado serializes a dict as JSON


# Counted per process from 1 (SPEC §2). `next` on one IOLoop needs no lock.
_page_requests = itertools.count(1)


class PageHandler(BaseHandler):
    SUPPORTED_METHODS = ("GET",)

    def initialize(self, config: Settings) -> None:
        self.config = config

    async def get(self) -> None:
        if next(_page_requests) % self.config.page_delay_every == 0:
            await asyncio.sleep(self.config.page_delay_ms / 1000)
        # Read on every request, on the IOLoop, as Tornado's own StaticFileHandler reads files.
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.write(self.config.page_file.read_bytes())


class LongPollHandler(BaseHandler):
    SUPPORTED_METHODS = ("GET",)

    def initialize(self, config: Settings) -> None:
        self.config = config

    async def get(self) -> None:
        await asyncio.sleep(self.config.longpoll_ms / 1000)
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.write("OK")
