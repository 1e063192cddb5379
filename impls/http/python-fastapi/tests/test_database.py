"""SPEC §8 against a real server and a real PostgreSQL (the `database_url` fixture's)."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from concurrent.futures import ThreadPoolExecutor

import asyncpg
import pytest

from tests.conftest import start_server

FORTUNES_PAGE = """<!DOCTYPE html>
<html>
<head><title>Fortunes</title></head>
<body>
<table>
<tr><th>id</th><th>message</th></tr>
<tr><td>11</td><td>&lt;script&gt;alert(&#34;This should not be displayed in a browser alert box.&#34;);&lt;/script&gt;</td></tr>
<tr><td>4</td><td>A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1</td></tr>
<tr><td>5</td><td>A computer program does what you tell it to do, not what you want it to do.</td></tr>
<tr><td>2</td><td>A computer scientist is someone who fixes things that aren&#39;t broken.</td></tr>
<tr><td>8</td><td>A list is only as strong as its weakest link. — Donald Knuth</td></tr>
<tr><td>0</td><td>Additional fortune added at request time.</td></tr>
<tr><td>3</td><td>After enough decimal places, nobody gives a damn.</td></tr>
<tr><td>7</td><td>Any program that runs right is obsolete.</td></tr>
<tr><td>10</td><td>Computers make very fast, very accurate mistakes.</td></tr>
<tr><td>6</td><td>Emacs is a nice operating system, but I prefer UNIX. — Tom Christaensen</td></tr>
<tr><td>9</td><td>Feature: A bug with seniority.</td></tr>
<tr><td>1</td><td>fortune: No such file or directory</td></tr>
<tr><td>12</td><td>フレームワークのベンチマーク</td></tr>
</table>
</body>
</html>"""


def sql(url: str, query: str, *args):
    """One statement on a connection of the test's own, beside the server's."""

    async def run():
        conn = await asyncpg.connect(url)
        try:
            return await conn.fetch(query, *args)
        finally:
            await conn.close()

    return asyncio.run(run())


def stored(url: str, ids) -> dict[int, int]:
    return {r["id"]: r["randomnumber"] for r in sql(url, "SELECT id, randomnumber FROM world WHERE id = ANY($1::int[])", list(ids))}


def rows_of(res) -> list[dict]:
    assert res.status == 200, res.body
    assert res.headers["content-type"] == "application/json"
    rows = json.loads(res.body)
    for row in rows if isinstance(rows, list) else [rows]:
        assert set(row) == {"id", "randomNumber"} and 1 <= row["id"] <= 10_000, row
    return rows


@pytest.fixture(scope="module")
def db_server(tmp_path_factory, database_url):
    srv = start_server(tmp_path_factory.mktemp("db"), CONCUR_DB_URL=database_url, CONCUR_DB_POOL="4", CONCUR_DB_SLOW_MS="100")
    yield srv
    srv.stop()


def test_db_answers_a_row_as_stored(db_server, database_url):
    row = rows_of(db_server.request("GET", "/db"))
    assert isinstance(row, dict)
    assert stored(database_url, [row["id"]]) == {row["id"]: row["randomNumber"]}


@pytest.mark.parametrize(
    ("query", "n"),
    [("", 1), ("?queries=", 1), ("?queries=foo", 1), ("?queries=0", 1), ("?queries=-3", 1), ("?queries=%2B5", 1), ("?queries=1", 1),
     ("?queries=20", 20), ("?queries=500", 500), ("?queries=501", 500), ("?queries=99999999999", 500)],
)
def test_queries_clamps_n(db_server, query, n):
    assert len(rows_of(db_server.request("GET", "/queries" + query))) == n


def test_queries_rows_are_as_stored(db_server, database_url):
    rows = rows_of(db_server.request("GET", "/queries?queries=5"))
    now = stored(database_url, [r["id"] for r in rows])
    assert all(now[r["id"]] == r["randomNumber"] for r in rows), (rows, now)


def test_updates_write_the_new_numbers(db_server, database_url):
    rows = rows_of(db_server.request("GET", "/updates?queries=20"))
    assert len(rows) == 20
    drawn: dict[int, set[int]] = {}
    for row in rows:
        drawn.setdefault(row["id"], set()).add(row["randomNumber"])
    now = stored(database_url, drawn)
    assert all(now[i] in numbers for i, numbers in drawn.items()), (drawn, now)


def test_fortunes_is_the_escaped_sorted_page(db_server):
    for _ in range(2):
        res = db_server.request("GET", "/fortunes")
        assert res.status == 200
        assert res.headers["content-type"] == "text/html; charset=utf-8"
        assert res.text.strip() == FORTUNES_PAGE


def test_slowdb_waits_in_the_query(db_server):
    start = time.monotonic()
    rows_of(db_server.request("GET", "/slowdb"))
    assert time.monotonic() - start >= 0.1


def test_database_routes_refuse_other_methods(db_server):
    for path in ("/db", "/queries", "/updates", "/fortunes", "/slowdb"):
        res = db_server.request("POST", path)
        assert res.status == 405 and "GET" in res.headers["allow"]
    assert db_server.request("GET", "/db/1").status == 404


def test_a_connection_ended_under_the_pool_is_replaced(db_server, database_url):
    rows_of(db_server.request("GET", "/queries?queries=3"))
    ended = sql(database_url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = current_user AND pid <> pg_backend_pid()")
    assert ended, "the server held no connection to end"
    time.sleep(0.2)
    rows_of(db_server.request("GET", "/db"))


def test_a_query_on_a_connection_the_database_just_ended_is_503_not_500(db_server, database_url):
    """asyncpg raised InternalClientError ("cannot switch to state 12") for a query sent right after
    pg_terminate_backend, before it had processed the end: that was a 500 (concur verify, db-unreachable)."""
    for _ in range(5):
        rows_of(db_server.request("GET", "/queries?queries=8"))
        sql(database_url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = current_user AND pid <> pg_backend_pid()")
        res = db_server.request("GET", "/db")
        assert res.status in (200, 503), res.body


def connections(url: str) -> int:
    return sql(url, "SELECT count(*) FROM pg_stat_activity WHERE usename = current_user AND pid <> pg_backend_pid()")[0][0]


@pytest.mark.parametrize("cores", ["1", "2"])
def test_requests_wait_for_a_pooled_connection(tmp_path, database_url, cores):
    """With CONCUR_DB_POOL=2, 8 slow queries at once run two at a time in all processes together."""
    before = connections(database_url)
    srv = start_server(tmp_path, CONCUR_CORES=cores, CONCUR_DB_URL=database_url, CONCUR_DB_POOL="2", CONCUR_DB_SLOW_MS="100")
    try:
        start = time.monotonic()
        with ThreadPoolExecutor(8) as clients:
            pending = [clients.submit(srv.request, "GET", "/slowdb") for _ in range(8)]
            time.sleep(0.15)  # the first two have their connections; the others wait for one
            held = connections(database_url) - before
            answers = [f.result() for f in pending]
        took = time.monotonic() - start
        assert [r.status for r in answers] == [200] * 8
        assert held <= 2
        assert took >= 0.4, f"8 slow queries on 2 connections took {took:.3f} s, want at least 4 x 100 ms"
    finally:
        srv.stop()


def refused_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"postgres://u:p@127.0.0.1:{port}/db"


@pytest.mark.parametrize("url", ["", "refused"], ids=["no CONCUR_DB_URL", "a refused connection"])
def test_no_database_is_503_and_the_other_routes_serve(tmp_path, url):
    srv = start_server(tmp_path, CONCUR_DB_URL=refused_url() if url else "")
    try:
        for path in ("/db", "/queries?queries=2", "/updates", "/fortunes", "/slowdb"):
            start = time.monotonic()
            res = srv.request("GET", path)
            assert res.status == 503 and res.headers["content-type"].startswith("text/plain"), res.body
            assert res.text.strip() and "\n" not in res.text.strip()
            assert time.monotonic() - start < 5
        assert srv.request("GET", "/").text == "Hello, World!"
    finally:
        srv.stop()
