"""The body decoding of SPEC §2/§3.6: Python's JSON value, and what is not JSON."""

import pytest
from fastapi import HTTPException

from app.inputs import USER_NAME, parse_json


def test_a_body_becomes_pythons_value():
    assert parse_json(b'{"a":[1,2.5,"\\u0041",null,true],"b":{}}') == {"a": [1, 2.5, "A", None, True], "b": {}}


@pytest.mark.parametrize(
    "body",
    [b"", b"{", b"{'a':1}", b'{"a":NaN}', b'{"a":Infinity}', b'{"a":-Infinity}', b'{"a":1e400}', b'{"a":"\xff"}', b"\xc3\x28{}", b'{"a":"\xed\xa0\x80"}'],
)
def test_not_json_is_400(body):
    with pytest.raises(HTTPException) as err:
        parse_json(body)
    assert err.value.status_code == 400
    assert "\n" not in err.value.detail


def test_large_integers_stay_exact():
    assert parse_json(b'{"n":9007199254740991}') == {"n": 2**53 - 1}


@pytest.mark.parametrize("name", [b"a", b"A-z_0.9", b"x" * 64])
def test_valid_names(name):
    assert USER_NAME.fullmatch(name)


@pytest.mark.parametrize("name", [b"", b"x" * 65, b"a/b", b"%41", b"a b", b"\xc3\xbc", b"a:b"])
def test_invalid_names(name):
    assert not USER_NAME.fullmatch(name)
