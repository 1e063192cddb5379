"""`/db`, `/queries`, `/updates` and `/slowdb`: rows of `world` read one statement each (SPEC §8.3).

asyncpg prepares a statement on a connection the first time it runs there
and reuses it from the connection's statement cache after, so `fetchrow` or
`execute` with the SQL text and its arguments runs a prepared statement. A
request runs all its statements on its one pooled connection, each awaited
before the next is sent (spec/POLICIES.md §6, Rule R), and gives it back
to the pool before the response is encoded (`JSONResponse` encodes its
content when it is made). The rows are
answered with `JSONResponse` directly: the response needs no validation,
and FastAPI's path through `jsonable_encoder` would walk 500 dicts for
nothing.
"""

from __future__ import annotations

import random
import re

import asyncpg
from fastapi import APIRouter
from fastapi.responses import JSONResponse

from app.deps import DatabaseDep, SettingsDep

router = APIRouter()

WORLD_ROWS = 10_000
MAX_QUERIES = 500
SELECT_ROW = "SELECT id, randomnumber FROM world WHERE id = $1"
# The wait is the query's own, so the connection is held through it.
SELECT_SLOW = "SELECT id, randomnumber FROM world, pg_sleep($2) WHERE id = $1"
# All of a request's rows in one statement (spec/POLICIES.md §6, Rule W); asyncpg encodes a list as an array.
UPDATE_ROWS = "UPDATE world SET randomnumber = u.r FROM unnest($1::int[], $2::int[]) AS u(id, r) WHERE world.id = u.id"
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


@router.get("/db")
async def single_query(db: DatabaseDep) -> JSONResponse:
    async with db.connection() as conn:
        row = as_row(await conn.fetchrow(SELECT_ROW, random_id()))
    return JSONResponse(row)


@router.get("/queries")
async def queries(db: DatabaseDep, queries: str = "") -> JSONResponse:
    async with db.connection() as conn:
        rows = await read_rows(conn, query_count(queries))
    return JSONResponse(rows)


@router.get("/updates")
async def updates(db: DatabaseDep, queries: str = "") -> JSONResponse:
    async with db.connection() as conn:
        rows = await read_rows(conn, query_count(queries))
        for row in rows:
            row["randomNumber"] = random_id()
        # One statement is atomic, so no transaction; in id order, two requests lock shared rows alike and never deadlock.
        written = sorted((row["id"], row["randomNumber"]) for row in rows)
        await conn.execute(UPDATE_ROWS, [i for i, _ in written], [n for _, n in written])
    return JSONResponse(rows)


@router.get("/slowdb")
async def slow_query(db: DatabaseDep, settings: SettingsDep) -> JSONResponse:
    async with db.connection() as conn:
        row = as_row(await conn.fetchrow(SELECT_SLOW, random_id(), settings.db_slow_ms / 1000))
    return JSONResponse(row)
