"""spec/POLICIES.md §6.3: how the database pool is divided among the processes, and a route's
connection given back to the pool before the response is rendered."""

from __future__ import annotations

import json
from contextlib import asynccontextmanager

import pytest
from tornado.testing import AsyncHTTPTestCase
from tornado.web import RequestHandler

from app import config
from app.database import pool_share
from app.hashing import Hasher
from app.main import make_app
from app.store import LocalStore


@pytest.mark.parametrize(
    ("pool", "processes", "shares"),
    [(16, 3, [6, 5, 5]), (4, 4, [1, 1, 1, 1]), (16, 2, [8, 8]), (5, 2, [3, 2]), (6, 2, [3, 3]), (16, 1, [16])],
)
def test_process_i_gets_the_floor_plus_one_while_i_is_below_the_remainder(pool, processes, shares):
    assert [pool_share(pool, processes, i) for i in range(processes)] == shares


def test_the_processes_hold_all_of_the_pool():
    for pool in range(1, 65):
        for processes in range(1, pool + 1):
            assert sum(pool_share(pool, processes, i) for i in range(processes)) == pool, (pool, processes)


class FakeConnection:
    async def fetchrow(self, sql, *args):
        return (args[0], 42)

    async def fetch(self, sql, *args):
        return [(1, "a fortune")]

    async def execute(self, sql, *args):
        return "UPDATE"


class FakeDatabase:
    """Says whether a request holds its connection."""

    def __init__(self) -> None:
        self.held = False

    @asynccontextmanager
    async def connection(self):
        self.held = True
        try:
            yield FakeConnection()
        finally:
            self.held = False


class ReleaseBeforeRenderTest(AsyncHTTPTestCase):
    """The JSON is encoded (`write`) and the page rendered (`render_string`) after the connection went back."""

    def get_app(self):
        self.database = FakeDatabase()
        return make_app(config.from_env({"PORT": "0"}), LocalStore(), Hasher(4), self.database)

    def test_every_database_route_renders_without_its_connection(self):
        seen: list[tuple[str, bool]] = []
        write, render_string = RequestHandler.write, RequestHandler.render_string

        def watched_write(handler, chunk):
            seen.append(("write", self.database.held))
            return write(handler, chunk)

        def watched_render_string(handler, name, **kwargs):
            seen.append(("render", self.database.held))
            return render_string(handler, name, **kwargs)

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(RequestHandler, "write", watched_write)
            patch.setattr(RequestHandler, "render_string", watched_render_string)
            for path in ("/db", "/queries?queries=3", "/updates?queries=3", "/slowdb", "/fortunes"):
                res = self.fetch(path)
                assert res.code == 200, (path, res.body)
                if path != "/fortunes":
                    assert json.loads(res.body)
        assert ("render", False) in seen
        assert seen and not [s for s in seen if s[1]], seen
