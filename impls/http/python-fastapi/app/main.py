"""The FastAPI application Uvicorn serves (`app.main:app`), one instance per worker process."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from app import errors, faults, fortunes, hello, passwords, users, worlds
from app.config import from_env
from app.database import Database
from app.hashing import Hasher
from app.store import open_store


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    app.state.settings = settings = from_env()
    app.state.store = open_store()
    app.state.hasher = Hasher(settings.bcrypt_cost)
    app.state.database = await Database.open(settings)
    yield
    await app.state.database.close()


def create_app() -> FastAPI:
    # No redirect_slashes: `/user/get` must be 404, not a redirect to `/user/get/`.
    # No OpenAPI routes: `/docs` and `/openapi.json` are not part of the contract.
    app = FastAPI(lifespan=lifespan, redirect_slashes=False, openapi_url=None, docs_url=None, redoc_url=None)
    errors.install(app)
    app.include_router(hello.router)
    app.include_router(passwords.router)
    app.include_router(users.router)
    app.include_router(worlds.router)
    app.include_router(fortunes.router)
    if from_env().faults:  # SPEC §9: without CONCUR_FAULTS=1, /fault/* are unknown paths (404)
        app.include_router(faults.router)
    return app


app = create_app()
