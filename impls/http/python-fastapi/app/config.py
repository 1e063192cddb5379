"""The process environment of SPEC §1, read once per process.

The launcher (`server.py`) reads it first and exits with the variable's name
on a bad value, so the Uvicorn workers it spawns (which inherit the same
environment) read values already known to be good.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

# spec/static/hello.html of the repository, from impls/http/python-fastapi/app/.
DEFAULT_PAGE_FILE = Path(__file__).resolve().parents[4] / "spec" / "static" / "hello.html"


class ConfigError(ValueError):
    """A variable of SPEC §1 with a value the server cannot use; the message names it."""


@dataclass(frozen=True)
class Settings:
    port: int
    cores: int
    bcrypt_cost: int
    page_file: Path
    page_delay_every: int
    page_delay_ms: int
    longpoll_ms: int
    db_url: str  # "" when unset: the database routes answer 503 (SPEC §8.4)
    db_pool: int  # connections for all processes together (SPEC §8.2)
    db_slow_ms: int
    faults: bool  # the fault routes of SPEC §9, only with CONCUR_FAULTS=1


def _int(env: Mapping[str, str], name: str, default: int | None, low: int, high: int) -> int:
    text = env.get(name, "")
    if text == "":
        if default is None:
            raise ConfigError(f"{name} is not set: give the port to listen on, e.g. {name}=8080")
        return default
    try:
        value = int(text)
    except ValueError:
        raise ConfigError(f"invalid {name} '{text}': expected an integer from {low} to {high}") from None
    if not low <= value <= high:
        raise ConfigError(f"invalid {name} '{text}': expected an integer from {low} to {high}")
    return value


def from_env(env: Mapping[str, str] = os.environ) -> Settings:
    page_file = Path(env.get("CONCUR_PAGE_FILE") or DEFAULT_PAGE_FILE)
    return Settings(
        port=_int(env, "PORT", None, 0, 65535),
        cores=_int(env, "CONCUR_CORES", 1, 1, 1024),
        bcrypt_cost=_int(env, "CONCUR_BCRYPT_COST", 10, 4, 31),
        page_file=page_file,
        page_delay_every=_int(env, "CONCUR_PAGE_DELAY_EVERY", 10, 1, 2**31),
        page_delay_ms=_int(env, "CONCUR_PAGE_DELAY_MS", 2000, 0, 2**31),
        longpoll_ms=_int(env, "CONCUR_LONGPOLL_MS", 5000, 0, 2**31),
        db_url=env.get("CONCUR_DB_URL", ""),
        db_pool=_int(env, "CONCUR_DB_POOL", 16, 1, 2**31),
        db_slow_ms=_int(env, "CONCUR_DB_SLOW_MS", 20, 0, 2**31),
        faults=env.get("CONCUR_FAULTS") == "1",
    )
