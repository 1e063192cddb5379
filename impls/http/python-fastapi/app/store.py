"""The two stores of SPEC §2 (`passwords`, `users`): one logical store per server (SPEC §5).

With one process the maps are plain dicts in that process (`LocalStore`). With
Uvicorn's `--workers N` the processes share no memory, so the launcher starts
one owner before Uvicorn: a `multiprocessing` manager process serving a
`Stores` object on a Unix socket with an authkey. Workers reach it through
proxies (`SharedStore`); each call pickles its arguments and the result across
the socket, and runs on AnyIO's thread pool because a proxy call blocks.
"""

from __future__ import annotations

import os
import secrets
import threading
from multiprocessing.managers import BaseManager
from typing import Any, Protocol

import anyio.to_thread

ADDRESS_ENV = "CONCUR_STORE_ADDRESS"
AUTHKEY_ENV = "CONCUR_STORE_AUTHKEY"


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
    """One process: the dicts live here, and the event loop is their only user."""

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


def start_owner() -> StoreManager:
    """Starts the owner process and puts its address and authkey in the environment Uvicorn's workers inherit."""
    authkey = secrets.token_bytes(32)
    manager = StoreManager(authkey=authkey)  # address None: a fresh Unix socket in a private temp dir
    manager.start()
    os.environ[ADDRESS_ENV] = manager.address
    os.environ[AUTHKEY_ENV] = authkey.hex()
    return manager


class SharedStore:
    """A worker's client of the owner. The multiprocessing docs ask for one proxy per
    thread, so each pool thread opens its own connection on first use."""

    def __init__(self, address: str, authkey: bytes) -> None:
        self._address = address
        self._authkey = authkey
        self._local = threading.local()
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
        return await anyio.to_thread.run_sync(self._get, name, key)

    async def set(self, name: str, key: str, value: Any) -> None:
        await anyio.to_thread.run_sync(self._set, name, key, value)


def open_store() -> Store:
    """The shared store when the launcher started an owner, else this process's own dicts."""
    address = os.environ.get(ADDRESS_ENV)
    if not address:
        return LocalStore()
    return SharedStore(address, bytes.fromhex(os.environ[AUTHKEY_ENV]))
