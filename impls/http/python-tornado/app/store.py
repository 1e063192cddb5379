"""The two stores of SPEC §2 (`passwords`, `users`): one logical store per server (SPEC §5).

With one process the maps are plain dicts in that process (`LocalStore`). With
`fork_processes(N)` the workers share no memory, so the launcher forks one
owner first: a `multiprocessing` manager's server (`BaseManager.get_server`)
serving a `Stores` object on an abstract Unix socket with an authkey. The launcher forks
it itself rather than `manager.start()`, because every worker forked later
would inherit multiprocessing's record of that child and fail to join it at
exit. Workers reach it through proxies
(`SharedStore`); each call pickles its arguments and the result across the
socket. A proxy call blocks, so it runs on a small thread pool of the worker
(`IOLoop.run_in_executor`) and the IOLoop never waits on the owner.
"""

from __future__ import annotations

import os
import secrets
import threading
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.managers import BaseManager
from typing import Any, Protocol

from tornado.ioloop import IOLoop

# Store calls are short round trips; a few threads keep one slow call from queueing the rest.
STORE_THREADS = 4


class Store(Protocol):
    async def get(self, name: str, key: str) -> Any: ...

    async def set(self, name: str, key: str, value: Any) -> None: ...


class Stores:
    """The maps themselves; `None` means no entry (no stored value is ever None)."""

    def __init__(self) -> None:
        self.maps: dict[str, dict[str, Any]] = {"passwords": {}, "users": {}}

    def get(self, name: str, key: str) -> Any:
        return self.maps[name].get(key)

    def set(self, name: str, key: str, value: Any) -> None:
        self.maps[name][key] = value


class LocalStore:
    """One process: the dicts live here, and the IOLoop is their only user."""

    def __init__(self) -> None:
        self._stores = Stores()

    async def get(self, name: str, key: str) -> Any:
        return self._stores.get(name, key)

    async def set(self, name: str, key: str, value: Any) -> None:
        self._stores.set(name, key, value)


_owned = Stores()


def _owned_stores() -> Stores:
    return _owned


class StoreManager(BaseManager):
    pass


# The callable runs only in the owner process; every client gets a proxy to the same object.
StoreManager.register("stores", callable=_owned_stores, exposed=("get", "set"))


def owner_address() -> str:
    """A Unix socket in Linux's abstract namespace (a leading NUL): no file, so nothing is
    left behind even when the whole process group is killed."""
    return f"\0concur-tornado-{os.getpid()}-{secrets.token_hex(8)}"


def start_owner(address: str, lifeline: int, keepalive: int) -> tuple[int, bytes]:
    """Forks the owner process serving on the Unix socket `address`; returns its pid and the authkey.

    The socket is bound before the fork, so workers can connect as soon as this returns.
    The owner exits when `lifeline`, a pipe whose other end (`keepalive`) only the
    launcher keeps, reads end-of-file: when the launcher closes it, exits or is killed.
    """
    global _server
    authkey = secrets.token_bytes(32)
    _server = StoreManager(address=address, authkey=authkey).get_server()
    pid = os.fork()
    if pid == 0:
        os.close(keepalive)
        threading.Thread(target=_exit_at_eof, args=(lifeline,), daemon=True).start()
        try:
            _server.serve_forever()
        finally:
            os._exit(0)  # never back into the launcher's code
    return pid, authkey


def close_owner_socket() -> None:
    """Closes this process's inherited copy of the owner's listening socket (workers at
    start, the launcher before it reaps).

    Left open, a connection to a dead owner would still be queued by the kernel on
    that copy and wait forever (the proxies' finalizers connect at exit).
    """
    if _server is not None:
        _server.listener.close()


def _exit_at_eof(lifeline: int) -> None:
    os.read(lifeline, 1)
    os._exit(0)


_server: Any = None


class SharedStore:
    """A worker's client of the owner. The multiprocessing docs ask for one proxy per
    thread, so each pool thread opens its own connection on first use."""

    def __init__(self, address: str, authkey: bytes) -> None:
        self._address = address
        self._authkey = authkey
        self._local = threading.local()
        self._executor = ThreadPoolExecutor(max_workers=STORE_THREADS, thread_name_prefix="store")
        self._proxy()  # fail at startup, not on the first request, if the owner is unreachable

    def _proxy(self) -> Any:
        proxy = getattr(self._local, "proxy", None)
        if proxy is None:
            manager = StoreManager(address=self._address, authkey=self._authkey)
            manager.connect()
            proxy = self._local.proxy = manager.stores()
        return proxy

    def _get(self, name: str, key: str) -> Any:
        return self._proxy().get(name, key)

    def _set(self, name: str, key: str, value: Any) -> None:
        self._proxy().set(name, key, value)

    async def get(self, name: str, key: str) -> Any:
        return await IOLoop.current().run_in_executor(self._executor, self._get, name, key)

    async def set(self, name: str, key: str, value: Any) -> None:
        await IOLoop.current().run_in_executor(self._executor, self._set, name, key, value)
