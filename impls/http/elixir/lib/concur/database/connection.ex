defmodule Concur.Database.Connection do
  @moduledoc """
  One pooled connection: a process that owns at most one p1_pgsql
  connection (`:pgsql`, Debian's erlang-p1-pgsql), opens it when a request
  first needs it, prepares the routes' statements on it, and runs each
  request's statements in `run/2`.

  p1_pgsql runs every connection as a process of its own (`pgsql_proto`,
  with a socket process linked to it). This process links to it, so that
  either one's end ends the other, and traps exits, so that a connection
  the database ended (or the network cut) is forgotten here and opened
  again by the next request, without a restart.
  """
  use GenServer

  @doc """
  Runs `fun.(pg)` in this process on its open connection `pg`, or answers
  why there is none. `fun` throws `{:pgsql, reason}` for a failed statement
  (see `execute!/3`); an exit of the driver (a connection cut under a
  statement, its 5 s call timeout) drops the connection; an exception in
  `fun` is the request's error and leaves this process serving.
  """
  def run(conn, fun), do: GenServer.call(conn, {:run, fun}, :infinity)

  @doc "Runs the prepared statement `name`; its rows, or a throw of why not."
  def execute!(pg, name, params) do
    case :pgsql.execute(pg, name, params) do
      {:ok, {_command, rows}} when is_list(rows) -> rows
      {:ok, {command, _count}} -> command
      {:error, reason} -> throw({:pgsql, reason})
    end
  end

  def start_link(settings), do: GenServer.start_link(__MODULE__, settings)

  @impl true
  def init(settings) do
    Process.flag(:trap_exit, true)
    {:ok, %{options: Keyword.fetch!(settings, :options), statements: Keyword.fetch!(settings, :statements), pg: nil}}
  end

  @impl true
  def handle_call({:run, fun}, _from, state) do
    case open(state) do
      {:ok, state} ->
        try do
          {:reply, {:ok, fun.(state.pg)}, state}
        catch
          :throw, {:pgsql, reason} -> {:reply, {:error, reason}, state}
          :exit, reason -> {:reply, {:error, reason}, close(state)}
          # A reply of a shape the route did not expect: the request's failure, not this process's.
          :error, exception -> {:reply, {:error, Exception.message(exception)}, state}
        end

      {:error, reason} ->
        {:reply, {:error, reason}, state}
    end
  end

  @impl true
  def handle_info({:EXIT, pg, _reason}, %{pg: pg} = state), do: {:noreply, %{state | pg: nil}}
  # Notices the driver forwards, and the exits of connections already dropped.
  def handle_info(_message, state), do: {:noreply, state}

  @impl true
  def terminate(_reason, state), do: close(state)

  defp open(%{pg: nil} = state) do
    with {:ok, pg} <- :pgsql.connect(state.options) do
      Process.link(pg)

      case prepare(pg, state.statements) do
        :ok ->
          {:ok, %{state | pg: pg}}

        {:error, reason} ->
          close(%{state | pg: pg})
          {:error, reason}
      end
    end
  end

  defp open(state), do: {:ok, state}

  defp prepare(pg, statements) do
    Enum.reduce_while(statements, :ok, fn {name, sql}, :ok ->
      case :pgsql.prepare(pg, name, sql) do
        {:ok, _status, _params, _columns} -> {:cont, :ok}
        {:error, reason} -> {:halt, {:error, reason}}
      end
    end)
  end

  defp close(%{pg: nil} = state), do: state

  defp close(%{pg: pg} = state) do
    Process.unlink(pg)
    Process.exit(pg, :kill)
    %{state | pg: nil}
  end
end
