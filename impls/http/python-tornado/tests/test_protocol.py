"""SPEC §4 with raw sockets: framings http.client will not send, and the headers of every answer."""

from __future__ import annotations

import json

from tests.conftest import parse_responses


def test_keep_alive_many_requests(server):
    data = server.raw(*[b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"] * 20, pause=0.01)
    assert [r.status for r in parse_responses(data)] == [200] * 20


def test_pipelined_requests_see_each_other(server):
    body = b'{"n":1}'
    data = server.raw(
        b"POST /user/set/pipe HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
        + b"GET /user/get/pipe HTTP/1.1\r\nHost: x\r\n\r\n"
        + b"GET /json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    first, second, third = parse_responses(data)
    assert (first.status, first.body) == (200, b"OK")
    assert second.status == 200 and json.loads(second.body) == {"n": 1}
    assert third.status == 200 and third.headers["connection"] == "close"


def test_chunked_body(server):
    data = server.raw(
        b"POST /user/set/chunky HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        b"3\r\n{\"a\r\n4\r\n\":1}\r\n0\r\n\r\n"
    )
    assert parse_responses(data)[0].status == 200
    assert json.loads(server.request("GET", "/user/get/chunky").body) == {"a": 1}


def test_chunk_extensions_are_refused_by_tornado(server):
    # Tornado 6.6 does not parse chunk extensions (a TODO in http1connection.py): 400, then it goes on.
    data = server.raw(
        b"POST /user/set/ext HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"3;ext=1\r\n{\"a\r\n4\r\n\":1}\r\n0\r\n\r\n"
    )
    assert data.startswith(b"HTTP/1.1 400")
    assert server.request("GET", "/").status == 200


def test_expect_100_continue(server):
    body = b'{"password":"pw"}'
    data = server.raw(
        b"POST /password/set/cont HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\nContent-Length: %d\r\n\r\n" % len(body),
        body,
        pause=0.2,
    )
    assert data.startswith(b"HTTP/1.1 100 ")  # Tornado sends "100 (Continue)"
    assert parse_responses(data)[0].status == 200


def test_http10_is_closed_and_not_chunked(server):
    data = server.raw(b"GET /json HTTP/1.0\r\n\r\n")
    [res] = parse_responses(data)
    assert res.status == 200 and "content-length" in res.headers
    assert "transfer-encoding" not in res.headers


def test_a_request_sent_byte_by_byte(server):
    request = b"GET /json HTTP/1.1\r\nhOsT: x\r\nCONNECTION: close\r\n\r\n"
    data = server.raw(*[request[i : i + 1] for i in range(len(request))], pause=0.002)
    assert parse_responses(data)[0].status == 200


def test_malformed_requests_are_400_and_the_server_goes_on(server):
    for bad in [b"GARBAGE\r\n\r\n", b"GET / HTTP/1.1\r\nNo colon here\r\n\r\n", b"POST /user/set/x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"]:
        data = server.raw(bad)
        assert data.startswith(b"HTTP/1.1 400"), data
    assert server.request("GET", "/").status == 200


def test_a_body_on_a_get_is_not_the_next_request(server):
    data = server.raw(b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhelloGET /json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert [r.status for r in parse_responses(data)] == [200, 200]


def test_every_answer_has_the_required_headers(server):
    for method, path, body in [("GET", "/", None), ("GET", "/nope", None), ("POST", "/", "x"), ("POST", "/user/set/%41", "{}"), ("POST", "/user/set/x", "["), ("GET", "/user/get/none", None)]:
        res = server.request(method, path, body)
        for name in ("content-length", "content-type", "date", "server"):
            assert name in res.headers, (method, path, name)
