"""CONCUR_CORES=2: the forked workers share one store through its owner (SPEC §5), a dead worker
is replaced by fork_processes, and SIGTERM leaves no process behind (SPEC §1)."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from tests.conftest import start_server


def group_members(pgid: int) -> list[int]:
    """Live processes of a process group (zombies count as gone)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z" and int(fields[2]) == pgid:
            pids.append(int(entry.name))
    return pids


def children_of(parent: int) -> list[tuple[int, int]]:
    """(start time, pid) of the live children of `parent`, oldest first."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[1]) == parent:
            found.append((int(fields[19]), int(entry.name)))
    return sorted(found)


def workers_of(pgid: int, launcher: int) -> list[int]:
    """The launcher's children but the store's owner, which it forks first (before fork_processes)."""
    return [pid for _, pid in children_of(launcher)[1:]]


@pytest.fixture
def cluster(tmp_path):
    srv = start_server(tmp_path, CONCUR_CORES="2")
    yield srv
    if srv.process.poll() is None:
        srv.stop()


def test_every_connection_sees_the_write(cluster):
    for i in range(5):
        assert cluster.request("POST", "/user/set/shared", json.dumps({"i": i})).status == 200
        for _ in range(20):
            assert json.loads(cluster.request("GET", "/user/get/shared").body) == {"i": i}
    assert cluster.request("POST", "/password/set/shared", '{"password":"pw"}').status == 200
    for _ in range(6):
        assert cluster.request("POST", "/password/verify/shared", '{"password":"pw"}').status == 200


def test_a_dead_worker_is_replaced_and_the_store_survives(cluster):
    assert cluster.request("POST", "/user/set/survivor", '{"alive":true}').status == 200
    pgid = cluster.process.pid
    before = workers_of(pgid, cluster.process.pid)
    assert len(before) == 2
    os.kill(before[0], signal.SIGKILL)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        now = workers_of(pgid, cluster.process.pid)
        if len(now) == 2 and before[0] not in now:
            break
        time.sleep(0.2)
    else:
        pytest.fail(f"worker {before[0]} was not replaced: {workers_of(pgid, cluster.process.pid)}")
    for _ in range(10):
        assert json.loads(cluster.request("GET", "/user/get/survivor").body) == {"alive": True}


@pytest.mark.parametrize("to_group", [False, True], ids=["launcher", "group"])
def test_sigterm_leaves_nothing_behind(cluster, to_group):
    pgid = cluster.process.pid
    assert len(group_members(pgid)) >= 4  # launcher, store owner, 2 workers
    if to_group:
        os.killpg(pgid, signal.SIGTERM)  # what the orchestrator does
    else:
        cluster.process.send_signal(signal.SIGTERM)
    assert cluster.process.wait(timeout=15) == 0
    deadline = time.monotonic() + 5
    while group_members(pgid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert group_members(pgid) == []
