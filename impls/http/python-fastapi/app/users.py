"""`/user/set/{user}` and `/user/get/{user}`: a JSON object kept as Python's value, serialized on every get."""

from __future__ import annotations

import json

from fastapi import APIRouter, HTTPException, Request, Response
from fastapi.responses import PlainTextResponse

from app.deps import StoreDep
from app.inputs import USER_PARAM, UserName, read_json

router = APIRouter(default_response_class=PlainTextResponse)


@router.post(f"/user/set/{USER_PARAM}")
async def set_user(name: UserName, request: Request, store: StoreDep) -> str:
    value = await read_json(request)
    if not isinstance(value, dict):
        raise HTTPException(400, f"body must be a JSON object, not {type(value).__name__}")
    await store.set("users", name, value)
    return "OK"


@router.get(f"/user/get/{USER_PARAM}")
async def get_user(name: UserName, store: StoreDep) -> Response:
    value = await store.get("users", name)
    if value is None:
        raise HTTPException(404, f"no value is stored for user {name}")
    # json.dumps' ASCII escapes keep a lone surrogate ("\ud800", which json.loads accepts)
    # representable; FastAPI's JSONResponse writes raw UTF-8 and would fail on it.
    return Response(json.dumps(value, separators=(",", ":")), media_type="application/json")
