"""A real server for the tests: `server.py` as a subprocess on a port the OS picks (PORT=0).

Uvicorn logs the port it bound ("Uvicorn running on http://127.0.0.1:PORT"),
so the fixture reads it from the server's log file.
"""

from __future__ import annotations

import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent.parent
RUNNING = re.compile(r"Uvicorn running on http://127\.0\.0\.1:(\d+)")

# Short waits and the cheapest bcrypt cost keep the suite fast.
TEST_ENV = {
    "CONCUR_BCRYPT_COST": "4",
    "CONCUR_LONGPOLL_MS": "300",
    "CONCUR_PAGE_DELAY_EVERY": "3",
    "CONCUR_PAGE_DELAY_MS": "400",
}


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")


@dataclass
class Server:
    process: subprocess.Popen
    log: Path
    port: int = 0
    env: dict[str, str] = field(default_factory=dict)

    def request(self, method: str, path: str, body: bytes | str | None = None, headers: dict | None = None) -> Response:
        """One request on a new connection (http.client, as a plain client would send it)."""
        if isinstance(body, str):
            body = body.encode("utf-8")  # http.client would send a str as Latin-1
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            res = conn.getresponse()
            return Response(res.status, {k.lower(): v for k, v in res.getheaders()}, res.read())
        finally:
            conn.close()

    def raw(self, *pieces: bytes, timeout: float = 5.0, pause: float = 0.0) -> bytes:
        """Sends the bytes as given and returns everything read until the server closes or goes quiet."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=timeout) as sock:
            for piece in pieces:
                sock.sendall(piece)
                if pause:
                    time.sleep(pause)
            sock.settimeout(0.5)
            data = b""
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                try:
                    chunk = sock.recv(65536)
                except socket.timeout:
                    break
                except ConnectionResetError:
                    break
                if not chunk:
                    break
                data += chunk
            return data

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=15)


def start_server(tmp_path: Path, **env: str) -> Server:
    log = tmp_path / f"server-{time.monotonic_ns()}.log"
    full_env = {**os.environ, **TEST_ENV, "PORT": "0", **env}
    for name in ("CONCUR_STORE_ADDRESS", "CONCUR_STORE_AUTHKEY"):
        full_env.pop(name, None)
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "server.py"], cwd=HERE, env=full_env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    server = Server(process, log, env=full_env)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        match = RUNNING.search(log.read_text())
        if match and int(match.group(1)) != 0:
            server.port = int(match.group(1))
            break
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}:\n{log.read_text()}")
        time.sleep(0.05)
    else:
        server.stop()
        raise RuntimeError(f"server did not report its port:\n{log.read_text()}")
    # With workers the socket is bound before they start: wait until one answers.
    while time.monotonic() < deadline:
        try:
            if server.request("GET", "/").status == 200:
                return server
        except OSError:
            time.sleep(0.05)
    server.stop()
    raise RuntimeError(f"server did not answer:\n{log.read_text()}")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = start_server(tmp_path_factory.mktemp("server"))
    yield srv
    srv.stop()


def parse_responses(data: bytes) -> list[Response]:
    """Splits raw bytes into responses framed by Content-Length (what this server sends)."""
    responses = []
    while data:
        head, sep, rest = data.partition(b"\r\n\r\n")
        if not sep:
            raise AssertionError(f"incomplete response head: {data[:200]!r}")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ")[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if status == 100:
            data = rest
            continue
        length = int(headers.get("content-length", "0"))
        responses.append(Response(status, headers, rest[:length]))
        data = rest[length:]
    return responses


REPOSITORY = HERE.parents[2]


@pytest.fixture(scope="session")
def database_url() -> Iterator[str]:
    """PostgreSQL seeded as SPEC §8.1: CONCUR_DB_URL's (`concur test` gives it), else a `concur db` started here."""
    if url := os.environ.get("CONCUR_DB_URL"):
        yield url
        return
    concur = shutil.which("concur") or str(REPOSITORY / "target" / "release" / "concur")
    if not Path(concur).is_file():
        pytest.fail(f"the database routes need PostgreSQL: no concur on PATH nor at {concur}; run `cargo build --release`, or `concur test python-fastapi`")
    db = subprocess.Popen([concur, "db"], stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        line = db.stdout.readline().strip()
        if not line.startswith("CONCUR_DB_URL="):
            pytest.fail(f"concur db printed {line!r} where CONCUR_DB_URL=... was expected")
        yield line.removeprefix("CONCUR_DB_URL=")
    finally:
        db.send_signal(signal.SIGINT)
        db.wait(timeout=30)
