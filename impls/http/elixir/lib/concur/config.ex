defmodule Concur.Config do
  @moduledoc """
  The server's settings, read once from the environment the orchestrator
  gives it (spec/SPEC.md §1). A bad value stops the server before it listens,
  with a sentence naming the variable, so a typo never runs a benchmark with a
  silently different workload.

  The running server keeps its config in `:persistent_term`: every request
  reads it, and nothing writes it after start.
  """

  # spec/static/hello.html seen from this folder, where the server is started.
  @default_page_file "../../../spec/static/hello.html"

  defstruct [:port, :cores, :bcrypt_cost, :page_file, :page_delay_every, :page_delay_ms, :longpoll_ms, :db, :db_pool, :db_slow_ms, :faults]

  @type t :: %__MODULE__{
          port: 1..65535,
          cores: pos_integer(),
          bcrypt_cost: 4..31,
          page_file: Path.t(),
          page_delay_every: pos_integer(),
          page_delay_ms: non_neg_integer(),
          longpoll_ms: non_neg_integer(),
          db: keyword() | nil,
          db_pool: pos_integer(),
          db_slow_ms: non_neg_integer(),
          faults: boolean()
        }

  # Longer waits than this do not fit an Erlang timer.
  @max_ms 4_294_967_295

  @doc "Reads the settings from `env` (`System.get_env/0` in production, a map in tests)."
  @spec from_env(%{optional(String.t()) => String.t()}) :: {:ok, t()} | {:error, String.t()}
  def from_env(env) do
    with {:ok, port} <- port(env),
         {:ok, cores} <- integer(env, "CONCUR_CORES", 1, 1..1024),
         {:ok, cost} <- integer(env, "CONCUR_BCRYPT_COST", 10, 4..31),
         {:ok, every} <- integer(env, "CONCUR_PAGE_DELAY_EVERY", 10, 1..@max_ms),
         {:ok, delay} <- integer(env, "CONCUR_PAGE_DELAY_MS", 2000, 0..@max_ms),
         {:ok, longpoll} <- integer(env, "CONCUR_LONGPOLL_MS", 5000, 0..@max_ms),
         {:ok, db} <- database(present(env, "CONCUR_DB_URL")),
         {:ok, db_pool} <- integer(env, "CONCUR_DB_POOL", 16, 1..100_000),
         {:ok, db_slow_ms} <- integer(env, "CONCUR_DB_SLOW_MS", 20, 0..@max_ms) do
      {:ok,
       %__MODULE__{
         port: port,
         cores: cores,
         bcrypt_cost: cost,
         page_file: Path.expand(present(env, "CONCUR_PAGE_FILE") || @default_page_file),
         page_delay_every: every,
         page_delay_ms: delay,
         longpoll_ms: longpoll,
         db: db,
         db_pool: db_pool,
         db_slow_ms: db_slow_ms,
         # SPEC §9: the fault routes exist only when this is exactly "1".
         faults: Map.get(env, "CONCUR_FAULTS") == "1"
       }}
    end
  end

  @doc "The config of the running server."
  @spec get() :: t()
  def get, do: :persistent_term.get(__MODULE__)

  @doc false
  def put(%__MODULE__{} = config), do: :persistent_term.put(__MODULE__, config)

  defp port(env) do
    case present(env, "PORT") do
      nil -> {:error, "PORT is not set: give the TCP port to listen on (e.g. PORT=8080)"}
      _ -> integer(env, "PORT", nil, 1..65535)
    end
  end

  defp integer(env, name, default, first..last) do
    case present(env, name) do
      nil ->
        {:ok, default}

      raw ->
        case Integer.parse(String.trim(raw)) do
          {n, ""} when n >= first and n <= last -> {:ok, n}
          _ -> {:error, "#{name} must be an integer from #{first} to #{last}, got #{inspect(raw)}"}
        end
    end
  end

  # CONCUR_DB_URL (SPEC §8.2) as the options of :pgsql.connect/1; unset is
  # nil, and the database routes answer 503.
  defp database(nil), do: {:ok, nil}

  defp database(url) do
    with %URI{scheme: scheme, userinfo: info, host: host, port: port, path: "/" <> name, query: nil}
         when scheme in ["postgres", "postgresql"] and is_binary(info) and host not in [nil, ""] and name != "" <- URI.parse(url),
         [user, password] <- String.split(info, ":", parts: 2) do
      {:ok, [host: host, port: port || 5432, user: URI.decode(user), password: URI.decode(password), database: URI.decode(name)]}
    else
      _ -> {:error, "CONCUR_DB_URL must be postgres://USER:PASSWORD@HOST:PORT/DATABASE, got #{inspect(url)}"}
    end
  end

  # An empty variable counts as unset, as in a shell's ${VAR:-default}.
  defp present(env, name) do
    case Map.get(env, name) do
      nil -> nil
      "" -> nil
      value -> value
    end
  end
end
