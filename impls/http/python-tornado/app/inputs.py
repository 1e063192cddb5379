"""What a request body holds, checked as SPEC §3 rule 6 says: JSON, then the password's limits.

The body is decoded strictly (`bytes.decode` refuses bytes that are not UTF-8,
where a lenient decoder would put U+FFFD in their place) and parsed by the
standard library's `json` into Python's value: a `dict` for an object.
"""

from __future__ import annotations

import json
import math
from typing import Any

from tornado.web import HTTPError


def _not_a_json_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"number {text} is outside the range of a double")
    return value


def parse_json(body: bytes) -> Any:
    """The body as Python's JSON value; bytes that are not UTF-8 are not JSON (RFC 8259 §8.1)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HTTPError(400, f"body is not valid UTF-8: {exc.reason} at byte {exc.start}") from None
    try:
        return json.loads(text, parse_constant=_not_a_json_constant, parse_float=_finite)
    except ValueError as exc:
        raise HTTPError(400, f"body is not JSON: {exc}") from None


def password_of(value: Any) -> bytes:
    """The `password` member as bcrypt's input, within bcrypt's limits."""
    if not isinstance(value, dict) or not isinstance(value.get("password"), str):
        raise HTTPError(400, 'body must be a JSON object with a string member "password"')
    try:
        password = value["password"].encode("utf-8")
    except UnicodeEncodeError:
        raise HTTPError(400, "password is not Unicode text (a lone surrogate)") from None
    if len(password) > 72:
        raise HTTPError(400, "password longer than bcrypt's 72 bytes of UTF-8")
    if b"\0" in password:
        raise HTTPError(400, "password contains U+0000, which bcrypt cannot hash")
    return password
