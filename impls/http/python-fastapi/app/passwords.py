"""`/password/set/{user}` and `/password/verify/{user}`: bcrypt hashes kept in the `passwords` store."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import PlainTextResponse

from app.deps import HasherDep, StoreDep
from app.inputs import USER_PARAM, UserName, read_json

router = APIRouter(default_response_class=PlainTextResponse)


def password_of(value: Any) -> bytes:
    """The `password` member as bcrypt's input, within bcrypt's limits (SPEC §3.6)."""
    if not isinstance(value, dict) or not isinstance(value.get("password"), str):
        raise HTTPException(400, 'body must be a JSON object with a string member "password"')
    try:
        password = value["password"].encode("utf-8")
    except UnicodeEncodeError:
        raise HTTPException(400, "password is not Unicode text (a lone surrogate)") from None
    if len(password) > 72:
        raise HTTPException(400, "password longer than bcrypt's 72 bytes of UTF-8")
    if b"\0" in password:
        raise HTTPException(400, "password contains U+0000, which bcrypt cannot hash")
    return password


@router.post(f"/password/set/{USER_PARAM}")
async def set_password(name: UserName, request: Request, store: StoreDep, hasher: HasherDep) -> str:
    password = password_of(await read_json(request))
    await store.set("passwords", name, await hasher.hash(password))
    return "OK"


@router.post(f"/password/verify/{USER_PARAM}")
async def verify_password(name: UserName, request: Request, store: StoreDep, hasher: HasherDep) -> str:
    password = password_of(await read_json(request))
    hashed = await store.get("passwords", name)
    if hashed is None:
        await hasher.hash(password)  # as long as a real check, so the 404 tells no one the name is free
        raise HTTPException(404, f"no password is set for user {name}")
    if not await hasher.check(password, hashed):
        raise HTTPException(403, "wrong password")
    return "OK"
