"""`/`, `/json`, `/page` and `/longPoll`: the wrk hello-worlds, the blog's file server and the thesis' long poll."""

from __future__ import annotations

import asyncio
import itertools

import anyio
from fastapi import APIRouter
from fastapi.responses import HTMLResponse, PlainTextResponse

from app.deps import SettingsDep

router = APIRouter()

# Counted per process from 1 (SPEC §2). `next` on one event loop needs no lock.
_page_requests = itertools.count(1)


@router.get("/", response_class=PlainTextResponse)
async def hello() -> str:
    return "Hello, World!"


@router.get("/json")
async def hello_json() -> dict[str, str]:
    return {"message": "Hello, World!"}


@router.get("/page", response_class=HTMLResponse)
async def page(settings: SettingsDep) -> HTMLResponse:
    if next(_page_requests) % settings.page_delay_every == 0:
        await asyncio.sleep(settings.page_delay_ms / 1000)
    # Read on every request, on AnyIO's thread pool so the loop never waits on the disk.
    return HTMLResponse(await anyio.Path(settings.page_file).read_bytes())


@router.get("/longPoll", response_class=PlainTextResponse)
async def long_poll(settings: SettingsDep) -> str:
    await asyncio.sleep(settings.longpoll_ms / 1000)
    return "OK"
