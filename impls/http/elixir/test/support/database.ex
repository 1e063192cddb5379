defmodule Concur.Test.Database do
  @moduledoc """
  The PostgreSQL of the database routes, seeded as SPEC §8.1 says: the one
  `CONCUR_DB_URL` names (`concur test` sets it), else a `concur db` started
  here (the repository's release build, else `concur` on `PATH`) under
  `setpriv --pdeathsig SIGINT`, so that it stops when the VM does, and
  stopped at the end of the run. Also a connection of the tests' own, to
  read what the server wrote.
  """

  @doc "The URL of the database, starting one if none is given."
  def url do
    case System.get_env("CONCUR_DB_URL") do
      url when url not in [nil, ""] -> url
      _ -> start_concur_db()
    end
  end

  defp start_concur_db do
    built = Path.expand("../../../target/release/concur")
    concur = if File.exists?(built), do: built, else: System.find_executable("concur") || raise("no concur: cargo build --release, or export the CONCUR_DB_URL of a running `concur db`")
    port = Port.open({:spawn_executable, System.find_executable("setpriv")}, [:binary, :exit_status, {:line, 4096}, args: ["--pdeathsig", "SIGINT", concur, "db"]])
    {:os_pid, pid} = Port.info(port, :os_pid)
    System.at_exit(fn _ -> System.cmd("kill", ["-INT", to_string(pid)]) end)

    receive do
      {^port, {:data, {:eol, "CONCUR_DB_URL=" <> url}}} -> url
      {^port, {:exit_status, status}} -> raise "#{concur} db exited with status #{status} before printing CONCUR_DB_URL (its reason is above)"
    after
      60_000 -> raise "concur db printed no CONCUR_DB_URL within 60 s"
    end
  end

  @doc "A connection of the test's own, with the server's options."
  def connect do
    {:ok, pg} = :pgsql.connect(Concur.Config.get().db)
    pg
  end

  @doc "Runs one query on a connection of the test's own and returns its rows, each a list of strings."
  def query(sql, params \\ []) do
    pg = connect()

    try do
      {:ok, _command, _status, _columns, rows} = :pgsql.pquery(pg, sql, params)
      for row <- rows, do: for({_type, value} <- row, do: value)
    after
      :pgsql.terminate(pg)
    end
  end

  @doc "The randomNumber the database holds for row `id`."
  def stored(id), do: query("SELECT randomnumber FROM world WHERE id = $1", [id]) |> hd() |> hd() |> String.to_integer()
end
