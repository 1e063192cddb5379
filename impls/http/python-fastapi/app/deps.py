"""The per-process state handlers need, as FastAPI dependencies.

The lifespan (`app.main`) puts the settings, the store, the hasher and the database pool on
`app.state`. The dependencies are `async def` on purpose: FastAPI runs a plain
`def` dependency on the thread pool, a thread hop per request for a lookup.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.config import Settings
from app.database import Database
from app.hashing import Hasher
from app.store import Store


async def get_settings(request: Request) -> Settings:
    return request.app.state.settings


async def get_store(request: Request) -> Store:
    return request.app.state.store


async def get_hasher(request: Request) -> Hasher:
    return request.app.state.hasher


async def get_database(request: Request) -> Database:
    return request.app.state.database


SettingsDep = Annotated[Settings, Depends(get_settings)]
StoreDep = Annotated[Store, Depends(get_store)]
HasherDep = Annotated[Hasher, Depends(get_hasher)]
DatabaseDep = Annotated[Database, Depends(get_database)]
