defmodule Concur.ConfigTest do
  use ExUnit.Case, async: true
  alias Concur.Config

  test "defaults for everything but PORT" do
    assert {:ok, config} = Config.from_env(%{"PORT" => "8080"})
    assert %Config{port: 8080, cores: 1, bcrypt_cost: 10, page_delay_every: 10, page_delay_ms: 2000, longpoll_ms: 5000} = config
    assert config.page_file == Path.expand("../../../spec/static/hello.html")
  end

  test "PORT is required" do
    assert {:error, message} = Config.from_env(%{})
    assert message =~ "PORT"
  end

  test "the thesis' cost 20 is accepted, 3 and 32 are not" do
    assert {:ok, %Config{bcrypt_cost: 20}} = Config.from_env(%{"PORT" => "1", "CONCUR_BCRYPT_COST" => "20"})

    for bad <- ["3", "32", "ten", "10.5"] do
      assert {:error, message} = Config.from_env(%{"PORT" => "1", "CONCUR_BCRYPT_COST" => bad})
      assert message =~ "CONCUR_BCRYPT_COST"
    end
  end

  test "a bad value names its variable" do
    for name <- ~w(PORT CONCUR_CORES CONCUR_PAGE_DELAY_EVERY CONCUR_PAGE_DELAY_MS CONCUR_LONGPOLL_MS) do
      env = Map.merge(%{"PORT" => "8080"}, %{name => "-1"})
      assert {:error, message} = Config.from_env(env)
      assert message =~ name
    end
  end

  test "the database settings: CONCUR_DB_URL as connect options, the pool and the slow query's time" do
    assert {:ok, %Config{db: nil, db_pool: 16, db_slow_ms: 20}} = Config.from_env(%{"PORT" => "1"})
    env = %{"PORT" => "1", "CONCUR_DB_URL" => "postgres://bench%40x:p%3Ass@127.0.0.1:5433/hello_world", "CONCUR_DB_POOL" => "6", "CONCUR_DB_SLOW_MS" => "50"}
    assert {:ok, %Config{db: db, db_pool: 6, db_slow_ms: 50}} = Config.from_env(env)
    assert db == [host: "127.0.0.1", port: 5433, user: "bench@x", password: "p:ss", database: "hello_world"]

    for bad <- ["mysql://u:p@h:1/d", "postgres://u:p@h:1/", "postgres://h:1/d", "postgres://u:p@h:1/d?sslmode=require", "nonsense"] do
      assert {:error, message} = Config.from_env(%{"PORT" => "1", "CONCUR_DB_URL" => bad})
      assert message =~ "CONCUR_DB_URL must be postgres://USER:PASSWORD@HOST:PORT/DATABASE"
    end

    assert {:error, message} = Config.from_env(%{"PORT" => "1", "CONCUR_DB_POOL" => "0"})
    assert message =~ "CONCUR_DB_POOL"
  end

  test "an empty variable counts as unset" do
    assert {:ok, %Config{longpoll_ms: 5000}} = Config.from_env(%{"PORT" => "1", "CONCUR_LONGPOLL_MS" => ""})
  end
end
