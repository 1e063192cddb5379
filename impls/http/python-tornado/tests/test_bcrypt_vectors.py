"""spec/bcrypt-vectors.json: every `$2a$` and `$2b$` hash checks as the file says with the `bcrypt` package."""

import json
from pathlib import Path

import bcrypt
import pytest

VECTORS = json.loads((Path(__file__).resolve().parents[4] / "spec" / "bcrypt-vectors.json").read_text())["vectors"]


def test_the_file_has_both_prefixes():
    prefixes = {v["hash"][:4] for v in VECTORS}
    assert {"$2a$", "$2b$"} <= prefixes


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: f"{v['hash'][:7]}-{v['password'][:16]}")
def test_vector(vector):
    assert bcrypt.checkpw(vector["password"].encode("utf-8"), vector["hash"].encode("ascii")) is vector["matches"]


def test_a_new_hash_is_2b_and_checks():
    hashed = bcrypt.hashpw("pässword".encode(), bcrypt.gensalt(rounds=4))
    assert hashed.startswith(b"$2b$04$")
    assert bcrypt.checkpw("pässword".encode(), hashed)
    assert not bcrypt.checkpw(b"password", hashed)
