"""`/user/set/{user}` and `/user/get/{user}`: a JSON object kept as Python's value, serialized on every get."""

from __future__ import annotations

from tornado.web import HTTPError

from app.base import BaseHandler, BodyHandler
from app.inputs import parse_json
from app.store import Store


class SetUserHandler(BodyHandler):
    prefix = "/user/set/"

    def initialize(self, store: Store) -> None:
        self.store = store

    async def handle(self, body: bytes) -> None:
        value = parse_json(body)
        if not isinstance(value, dict):
            raise HTTPError(400, f"body must be a JSON object, not {type(value).__name__}")
        await self.store.set("users", self.user, value)
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.write("OK")


class GetUserHandler(BaseHandler):
    SUPPORTED_METHODS = ("GET",)
    prefix = "/user/get/"

    def initialize(self, store: Store) -> None:
        self.store = store

    async def get(self) -> None:
        name = self.user_name()
        value = await self.store.get("users", name)
        if value is None:
            raise HTTPError(404, f"no value is stored for user {name}")
        self.write(value)  # a dict: Tornado's json_encode (json.dumps), anew on every get
