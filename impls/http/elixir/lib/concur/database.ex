defmodule Concur.Database do
  @moduledoc """
  The database routes of SPEC §8.3. A request checks out one pooled
  connection process (`Concur.Database.Pool`) and runs all its statements on
  it, prepared statements each (`Concur.Database.Connection` prepares them
  when it connects); any failure of the pool, the connection or a statement
  answers 503 with a one-line reason (§8.4). The connection goes back to the
  pool as soon as the last statement's result is read: each route's query
  function returns its rows from the checkout, and the route renders them
  (JSON, or the fortunes page) after the check-in.
  """

  alias Concur.Config
  alias Concur.Database.{Connection, Pool}
  alias Concur.HTTP.Reply

  @world_rows 10_000
  @max_queries 500

  @doc "The statements every connection prepares, by name (p1_pgsql sends parameters as text)."
  def statements do
    [
      {"world", "SELECT id, randomnumber FROM world WHERE id = $1"},
      # The wait is the query's own, so the connection is held through it.
      {"world_slow", "SELECT id, randomnumber FROM world, pg_sleep($2) WHERE id = $1"},
      # One statement for the request's rows, ids ascending, so that two
      # requests lock the rows they share in the same order: no deadlock.
      {"world_update", "UPDATE world SET randomnumber = u.r FROM unnest($1::int[], $2::int[]) AS u(id, r) WHERE world.id = u.id"},
      {"fortunes", "SELECT id, message FROM fortune"}
    ]
  end

  def single(_req), do: answer(&row(&1, "world", []), &Reply.json(200, &1))

  # N is read here, in the request's process: the query functions given to
  # answer/2 run in the connection's, and mochiweb caches the parsed query
  # string in the process dictionary of the process that first parses it.
  def queries(req) do
    n = query_count(req)
    answer(&rows(&1, n), &Reply.json(200, &1))
  end

  def updates(req) do
    n = query_count(req)
    answer(&update(&1, n), &Reply.json(200, &1))
  end

  def slow(_req) do
    seconds = Config.get().db_slow_ms / 1000
    answer(&row(&1, "world_slow", [to_charlist(seconds)]), &Reply.json(200, &1))
  end

  def fortunes(_req) do
    answer(
      fn pg ->
        # p1_pgsql tags a column with its type's name (text or varchar here).
        for [{:int4, id}, {_type, message}] <- Connection.execute!(pg, "fortunes", []), do: %{id: id, message: message}
      end,
      fn stored -> {200, [{"Content-Type", "text/html; charset=utf-8"}], Concur.Fortunes.page(stored)} end
    )
  end

  @doc "`queries` of the request's query string, clamped to 1..500; anything but an integer counts as 1."
  def query_count(req) do
    with value when is_list(value) <- :proplists.get_value(~c"queries", :mochiweb_request.parse_qs(req)),
         {n, ""} <- Integer.parse(to_string(value)) do
      n |> max(1) |> min(@max_queries)
    else
      _ -> 1
    end
  end

  defp answer(query, render) do
    case Config.get().db do
      nil -> unavailable("CONCUR_DB_URL is not set")
      _ -> with_connection(query, render)
    end
  end

  # `query` runs on the checked-out connection and returns its rows, which
  # are rendered once `Pool.transaction/2` has checked the connection in:
  # the sort, the template and the encoding run without it.
  defp with_connection(query, render) do
    case Pool.transaction(fn conn -> Connection.run(conn, query) end) do
      {:ok, result} -> render.(result)
      {:error, reason} -> unavailable(reason(reason))
    end
  end

  defp unavailable(reason), do: Reply.error(503, "database unavailable: " <> reason)

  # PostgreSQL's own message when the driver passes one on, else the term.
  defp reason(reason) do
    case find_message(reason) do
      nil -> inspect(reason, limit: 8, printable_limit: 200)
      message -> to_string(message)
    end
    |> String.replace(~r/\s+/, " ")
  end

  defp find_message({:message, message}) when is_binary(message) or is_list(message), do: message
  defp find_message(list) when is_list(list), do: Enum.find_value(list, &find_message/1)
  defp find_message(tuple) when is_tuple(tuple), do: tuple |> Tuple.to_list() |> find_message()
  defp find_message(_), do: nil

  defp random_id, do: :rand.uniform(@world_rows)

  defp row(pg, statement, more) do
    [[{:int4, id}, {:int4, number}]] = Connection.execute!(pg, statement, [random_id() | more])
    %{"id" => String.to_integer(id), "randomNumber" => String.to_integer(number)}
  end

  # One statement per row, one after the other on the request's connection.
  defp rows(pg, n), do: for(_ <- 1..n, do: row(pg, "world", []))

  defp update(pg, n) do
    rows = for row <- rows(pg, n), do: %{row | "randomNumber" => random_id()}
    # Written in id order (see the statement); answered in the order read.
    sorted = Enum.sort_by(rows, & &1["id"])
    Connection.execute!(pg, "world_update", [array(sorted, "id"), array(sorted, "randomNumber")])
    rows
  end

  # A PostgreSQL array literal as a charlist, which p1_pgsql sends as text.
  defp array(rows, key), do: to_charlist("{" <> Enum.map_join(rows, ",", & &1[key]) <> "}")
end
