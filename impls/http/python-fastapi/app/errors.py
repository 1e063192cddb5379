"""Every error as a one-line `text/plain` body (SPEC §3), instead of FastAPI's JSON `{"detail": ...}`.

Handlers raise `HTTPException(status, reason)`; Starlette's router raises the
same for 404 and for 405 (with `Allow`). Nothing here declares a pydantic body
model, so `RequestValidationError` (FastAPI's 422) cannot occur; it is mapped to
400 all the same so that no 422 can ever reach a client.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import PlainTextResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

log = logging.getLogger("uvicorn.error")


def _one_line(reason: object) -> str:
    return " ".join(str(reason).split()) or "error"


async def http_error(request: Request, exc: StarletteHTTPException) -> PlainTextResponse:
    return PlainTextResponse(_one_line(exc.detail), status_code=exc.status_code, headers=exc.headers)


async def validation_error(request: Request, exc: RequestValidationError) -> PlainTextResponse:
    return PlainTextResponse(_one_line(f"invalid request: {exc.errors()}"), status_code=400)


async def server_error(request: Request, exc: Exception) -> PlainTextResponse:
    # Starlette's ServerErrorMiddleware logs the traceback after this answer.
    return PlainTextResponse(_one_line(f"internal error: {type(exc).__name__}"), status_code=500)


def install(app: FastAPI) -> None:
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(Exception, server_error)
