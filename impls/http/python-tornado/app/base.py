"""What every handler shares: one-line `text/plain` errors (SPEC §3), `Allow` on 405, and
for the POST routes the order of checks that comes before the body.

Tornado's own error page is HTML and its 405 has no `Allow`; `write_error` is
Tornado's hook for both. `BodyHandler` streams the body (`@stream_request_body`)
so `prepare` runs on the headers alone: the user name (rule 4) is checked
before the size (rule 5), and a `Content-Length` over 1 MiB is answered
before a byte of the body is read.
"""

from __future__ import annotations

import re
from typing import Any

from tornado.web import HTTPError, RequestHandler, stream_request_body

MAX_BODY = 1024 * 1024
USER_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")

# A streamed body is bounded by `data_received`, which answers 413; Tornado's own
# limit would answer a bare 400 instead, so it is lifted for these handlers only.
STREAMED_LIMIT = 2**62

DEFAULT_REASONS = {
    404: "no such route",
    413: f"request body over 1 MiB ({MAX_BODY} bytes)",
}


class BaseHandler(RequestHandler):
    # `{user}` is the rest of the raw path after this prefix; empty for routes without one.
    prefix = ""

    def user_name(self) -> str:
        """`{user}` from the raw path: Tornado's path arguments are percent-decoded, and `%41` must not become `A`."""
        raw = self.request.path[len(self.prefix) :]
        if not USER_NAME.fullmatch(raw):
            raise HTTPError(400, "invalid user name: must match [A-Za-z0-9_.-]{1,64}")
        return raw

    def closes_after_error(self) -> bool:
        return False

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        exc = kwargs.get("exc_info", (None, None, None))[1]
        if isinstance(exc, HTTPError) and exc.log_message:
            reason = exc.log_message
        elif status_code == 405:
            reason = f"method {self.request.method} not allowed: use {', '.join(self.SUPPORTED_METHODS)}"
        else:
            reason = DEFAULT_REASONS.get(status_code, f"{status_code} {self._reason}")
        if status_code == 405:
            self.set_header("Allow", ", ".join(self.SUPPORTED_METHODS))
        if self.closes_after_error():
            self.set_header("Connection", "close")
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.finish(" ".join(reason.split()) or "error")

    def log_exception(self, typ: Any, value: Any, tb: Any) -> None:
        # A client's mistake (HTTPError) is answered, not logged: the verifier sends thousands.
        if not isinstance(value, HTTPError):
            super().log_exception(typ, value, tb)


class NotFoundHandler(BaseHandler):
    """The application's `default_handler_class`: every path that no route matches."""

    def prepare(self) -> None:
        raise HTTPError(404, f"no route for path {self.request.path}")


@stream_request_body
class BodyHandler(BaseHandler):
    """A POST route with a JSON body of at most 1 MiB; `post` runs once the whole body is in `self.body`."""

    SUPPORTED_METHODS = ("POST",)

    def prepare(self) -> None:
        self.body = bytearray()
        self.body_complete = False
        self.user = self.user_name()
        self.request.connection.set_max_body_size(STREAMED_LIMIT)
        length = self.request.headers.get("Content-Length", "")
        if length.isdigit() and int(length) > MAX_BODY:
            raise HTTPError(413)

    def data_received(self, chunk: bytes) -> None:
        if self._finished:
            return
        self.body += chunk
        if len(self.body) > MAX_BODY:
            self.body = bytearray()
            self.send_error(413)

    def closes_after_error(self) -> bool:
        # An answer before the whole body is read ends the connection: Tornado closes it
        # rather than read the rest, and the header tells the client so.
        return not getattr(self, "body_complete", False)

    async def post(self) -> None:
        self.body_complete = True
        await self.handle(bytes(self.body))

    async def handle(self, body: bytes) -> None:
        raise NotImplementedError
