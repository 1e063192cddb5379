"""`/db`, `/queries`, `/updates`, `/slowdb` and `/fortunes`: the database routes of SPEC §8.3.

asyncpg prepares a statement on a connection the first time it runs there
and reuses it from the connection's statement cache after, so `fetchrow` or
`execute` with the SQL text and its arguments runs a prepared statement. A
request runs all its statements on its one pooled connection, each awaited
before the next is sent (spec/POLICIES.md §6, Rule R), and gives it back
to the pool before the JSON or the page is made. Tornado's `write`
serializes a dict but refuses a list (an old JSON-hijacking guard), so
arrays are encoded with `json_encode`, the same `json.dumps` it would call.
"""

from __future__ import annotations

import random
import re
from operator import itemgetter

import asyncpg
from tornado.escape import json_encode

from app.base import BaseHandler
from app.config import Settings
from app.database import Database

WORLD_ROWS = 10_000
MAX_QUERIES = 500
SELECT_ROW = "SELECT id, randomnumber FROM world WHERE id = $1"
# The wait is the query's own, so the connection is held through it.
SELECT_SLOW = "SELECT id, randomnumber FROM world, pg_sleep($2) WHERE id = $1"
# All of a request's rows in one statement (spec/POLICIES.md §6, Rule W); asyncpg encodes a list as an array.
UPDATE_ROWS = "UPDATE world SET randomnumber = u.r FROM unnest($1::int[], $2::int[]) AS u(id, r) WHERE world.id = u.id"
ADDED_FORTUNE = (0, "Additional fortune added at request time.")
# Python's int() also takes " 5", "+5" and "5_000"; the contract's N is plain decimal.
DECIMAL = re.compile(r"-?[0-9]+")


def query_count(text: str) -> int:
    """`queries` clamped to 1..500; anything that is not a decimal integer counts as 1."""
    if not DECIMAL.fullmatch(text):
        return 1
    return min(max(int(text), 1), MAX_QUERIES)


def random_id() -> int:
    return random.randint(1, WORLD_ROWS)


def as_row(record: asyncpg.Record) -> dict[str, int]:
    return {"id": record[0], "randomNumber": record[1]}


async def read_rows(conn: asyncpg.Connection, n: int) -> list[dict[str, int]]:
    return [as_row(await conn.fetchrow(SELECT_ROW, random_id())) for _ in range(n)]


class DatabaseHandler(BaseHandler):
    SUPPORTED_METHODS = ("GET",)

    def initialize(self, database: Database, config: Settings) -> None:
        self.database = database
        self.config = config

    def write_rows(self, rows: list[dict[str, int]]) -> None:
        self.set_header("Content-Type", "application/json; charset=UTF-8")
        self.write(json_encode(rows))


class SingleQueryHandler(DatabaseHandler):
    async def get(self) -> None:
        async with self.database.connection() as conn:
            row = as_row(await conn.fetchrow(SELECT_ROW, random_id()))
        self.write(row)


class QueriesHandler(DatabaseHandler):
    async def get(self) -> None:
        async with self.database.connection() as conn:
            rows = await read_rows(conn, query_count(self.get_query_argument("queries", "")))
        self.write_rows(rows)


class UpdatesHandler(DatabaseHandler):
    async def get(self) -> None:
        async with self.database.connection() as conn:
            rows = await read_rows(conn, query_count(self.get_query_argument("queries", "")))
            for row in rows:
                row["randomNumber"] = random_id()
            # One statement is atomic, so no transaction; in id order, two requests lock shared rows alike and never deadlock.
            written = sorted((row["id"], row["randomNumber"]) for row in rows)
            await conn.execute(UPDATE_ROWS, [i for i, _ in written], [n for _, n in written])
        self.write_rows(rows)


class SlowQueryHandler(DatabaseHandler):
    async def get(self) -> None:
        async with self.database.connection() as conn:
            row = as_row(await conn.fetchrow(SELECT_SLOW, random_id(), self.config.db_slow_ms / 1000))
        self.write(row)


class FortunesHandler(DatabaseHandler):
    """TechEmpower's page through a Tornado template, which escapes every `{{ }}` (autoescape `xhtml_escape`)."""

    async def get(self) -> None:
        async with self.database.connection() as conn:
            stored = await conn.fetch("SELECT id, message FROM fortune")
        rows = [(record[0], record[1]) for record in stored]
        rows.append(ADDED_FORTUNE)
        rows.sort(key=itemgetter(1))  # Python compares str by code point, as SPEC §8.3 asks
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.render("fortunes.html", fortunes=rows)
