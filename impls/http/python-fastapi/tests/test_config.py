"""SPEC §1: defaults, and errors that name the variable."""

import pytest

from app.config import DEFAULT_PAGE_FILE, ConfigError, from_env


def test_defaults():
    s = from_env({"PORT": "8080"})
    assert (s.port, s.cores, s.bcrypt_cost) == (8080, 1, 10)
    assert (s.page_delay_every, s.page_delay_ms, s.longpoll_ms) == (10, 2000, 5000)
    assert s.page_file == DEFAULT_PAGE_FILE and DEFAULT_PAGE_FILE.is_file()
    assert (s.db_url, s.db_pool, s.db_slow_ms) == ("", 16, 20)


def test_the_thesis_cost_is_accepted():
    assert from_env({"PORT": "1", "CONCUR_BCRYPT_COST": "20"}).bcrypt_cost == 20


@pytest.mark.parametrize(
    ("env", "name"),
    [
        ({}, "PORT"),
        ({"PORT": "http"}, "PORT"),
        ({"PORT": "1", "CONCUR_CORES": "0"}, "CONCUR_CORES"),
        ({"PORT": "1", "CONCUR_BCRYPT_COST": "3"}, "CONCUR_BCRYPT_COST"),
        ({"PORT": "1", "CONCUR_PAGE_DELAY_EVERY": "0"}, "CONCUR_PAGE_DELAY_EVERY"),
        ({"PORT": "1", "CONCUR_LONGPOLL_MS": "-1"}, "CONCUR_LONGPOLL_MS"),
        ({"PORT": "1", "CONCUR_DB_POOL": "0"}, "CONCUR_DB_POOL"),
        ({"PORT": "1", "CONCUR_DB_SLOW_MS": "soon"}, "CONCUR_DB_SLOW_MS"),
    ],
)
def test_a_bad_value_names_its_variable(env, name):
    with pytest.raises(ConfigError, match=name):
        from_env(env)
