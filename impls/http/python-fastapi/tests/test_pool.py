"""spec/POLICIES.md §6.3: how the database pool is divided among Uvicorn's workers, and a route's
connection given back to the pool before its response is encoded or rendered."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager

import pytest

from app import fortunes, worlds
from app.config import from_env
from app.database import pool_share


@pytest.mark.parametrize(("pool", "processes", "share"), [(16, 3, 5), (4, 4, 1), (16, 2, 8), (6, 2, 3), (16, 1, 16)])
def test_every_worker_gets_the_floor(pool, processes, share):
    assert pool_share(pool, processes) == share


def test_the_floor_leaves_the_remainder_unused():
    """The departure the README declares: Uvicorn gives a worker no index, so no worker can take
    one of the remainder's connections; 16 over 3 uses 15."""
    assert 3 * pool_share(16, 3) == 15
    for pool in range(1, 65):
        for processes in range(1, pool + 1):
            assert pool - processes < processes * pool_share(pool, processes) <= pool, (pool, processes)


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


def test_every_database_route_encodes_and_renders_without_its_connection(monkeypatch):
    db = FakeDatabase()
    seen: list[bool] = []
    json_response = worlds.JSONResponse

    def watched_json(content):
        seen.append(db.held)
        return json_response(content)

    def watched_template(request, name, context):
        seen.append(db.held)
        return "page"

    monkeypatch.setattr(worlds, "JSONResponse", watched_json)
    monkeypatch.setattr(fortunes.templates, "TemplateResponse", watched_template)
    settings = from_env({"PORT": "0", "CONCUR_DB_SLOW_MS": "0"})

    async def every_route():
        await worlds.single_query(db)
        await worlds.queries(db, "3")
        await worlds.updates(db, "3")
        await worlds.slow_query(db, settings)
        await fortunes.fortunes(None, db)

    asyncio.run(every_route())
    assert seen == [False] * 5
