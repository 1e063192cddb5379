"""`/fortunes`: TechEmpower's page, rendered by Jinja2 through Starlette's `Jinja2Templates` (FastAPI's "Templates" docs).

`Jinja2Templates` turns autoescaping on for `.html` templates, so each
message is escaped where it is printed: the `<script>` fortune arrives as
text, the Japanese one intact as UTF-8.
"""

from __future__ import annotations

from operator import itemgetter
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from app.deps import DatabaseDep

router = APIRouter()
templates = Jinja2Templates(directory=Path(__file__).parent / "templates")

ADDED = (0, "Additional fortune added at request time.")


@router.get("/fortunes", response_class=HTMLResponse)
async def fortunes(request: Request, db: DatabaseDep) -> HTMLResponse:
    async with db.connection() as conn:
        stored = await conn.fetch("SELECT id, message FROM fortune")
    rows = [(record[0], record[1]) for record in stored]
    rows.append(ADDED)
    rows.sort(key=itemgetter(1))  # Python compares str by code point, as SPEC §8.3 asks
    return templates.TemplateResponse(request, "fortunes.html", {"fortunes": rows})
