"""What the POST routes take from a request, checked in SPEC §3's order.

`UserName` (rule 4) is a dependency, so it runs before the handler reads the
body; `read_json` then applies rules 5 and 6. Both work on what the client
sent: `{user}` on the undecoded path (Starlette's path parameters are
percent-decoded, and `%41` must not become `A`), and the body as raw bytes,
without a pydantic model, so no `Content-Type` is required.
"""

from __future__ import annotations

import json
import math
import re
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request
from starlette.requests import ClientDisconnect

MAX_BODY = 1024 * 1024
USER_NAME = re.compile(rb"[A-Za-z0-9_.-]{1,64}")
USER_PARAM = "{user:path}"


async def user_name(request: Request) -> str:
    """`{user}` from the raw path, after the prefix of the route that matched."""
    prefix = request.scope["route"].path.removesuffix(USER_PARAM)
    raw = request.scope["raw_path"][len(prefix) :]
    if not USER_NAME.fullmatch(raw):
        raise HTTPException(400, "invalid user name: must match [A-Za-z0-9_.-]{1,64}")
    return raw.decode("ascii")


UserName = Annotated[str, Depends(user_name)]


def _too_large() -> HTTPException:
    # The rest of the body is not read: close the connection rather than drain it.
    return HTTPException(413, "request body over 1 MiB (1048576 bytes)", headers={"Connection": "close"})


async def read_body(request: Request) -> bytes:
    """The body, refused as soon as `Content-Length` or the bytes streamed so far pass 1 MiB."""
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > MAX_BODY:
        raise _too_large()
    body = bytearray()
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY:
                raise _too_large()
    except ClientDisconnect:
        raise HTTPException(400, "the client closed the connection before the body ended") from None
    return bytes(body)


def _not_a_json_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"number {text} is outside the range of a double")
    return value


def parse_json(body: bytes) -> Any:
    """The body as Python's JSON value; bytes that are not UTF-8 are not JSON (RFC 8259 §8.1)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HTTPException(400, f"body is not valid UTF-8: {exc.reason} at byte {exc.start}") from None
    try:
        return json.loads(text, parse_constant=_not_a_json_constant, parse_float=_finite)
    except ValueError as exc:
        raise HTTPException(400, f"body is not JSON: {exc}") from None


async def read_json(request: Request) -> Any:
    return parse_json(await read_body(request))
