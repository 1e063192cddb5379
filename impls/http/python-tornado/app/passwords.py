"""`/password/set/{user}` and `/password/verify/{user}`: bcrypt hashes kept in the `passwords` store."""

from __future__ import annotations

from tornado.web import HTTPError

from app.base import BodyHandler
from app.hashing import Hasher
from app.inputs import parse_json, password_of
from app.store import Store


class PasswordHandler(BodyHandler):
    def initialize(self, store: Store, hasher: Hasher) -> None:
        self.store = store
        self.hasher = hasher

    def ok(self) -> None:
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.write("OK")


class SetPasswordHandler(PasswordHandler):
    prefix = "/password/set/"

    async def handle(self, body: bytes) -> None:
        password = password_of(parse_json(body))
        await self.store.set("passwords", self.user, await self.hasher.hash(password))
        self.ok()


class VerifyPasswordHandler(PasswordHandler):
    prefix = "/password/verify/"

    async def handle(self, body: bytes) -> None:
        password = password_of(parse_json(body))
        hashed = await self.store.get("passwords", self.user)
        if hashed is None:
            await self.hasher.hash(password)  # as long as a real check, so the 404 tells no one the name is free
            raise HTTPError(404, f"no password is set for user {self.user}")
        if not await self.hasher.check(password, hashed):
            raise HTTPError(403, "wrong password")
        self.ok()
