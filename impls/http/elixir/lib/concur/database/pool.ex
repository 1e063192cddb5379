defmodule Concur.Database.Pool do
  @moduledoc """
  A pool of at most `size` `Concur.Database.Connection` processes, each
  holding at most one PostgreSQL connection, checked out by one request at a
  time: poolboy's design, written out because Hex is out of reach.

  A request process calls `transaction/2`. An idle connection process is
  handed over at once; else, while there are fewer than `size`, a new one
  is started (it connects on first use); else the caller is queued, first
  come first served, and its `GenServer.call` waits (the process is parked,
  no scheduler is held) until a connection is checked in. The pool monitors
  every caller, so a request process that dies returns its connection or
  leaves the queue. It links the connection processes and traps their
  exits, so one that dies frees its place for a new one.
  """
  use GenServer

  alias Concur.Database.Connection

  defstruct [:size, :settings, idle: [], busy: %{}, waiting: :queue.new(), started: 0]

  def start_link(opts) do
    {name, opts} = Keyword.pop(opts, :name, __MODULE__)
    GenServer.start_link(__MODULE__, opts, name: name)
  end

  def child_spec(opts), do: %{id: Keyword.get(opts, :name, __MODULE__), start: {__MODULE__, :start_link, [opts]}}

  @doc "Runs `fun` with a connection process checked out for the caller alone, and checks it in after."
  def transaction(pool \\ __MODULE__, fun) do
    conn = GenServer.call(pool, :checkout, :infinity)

    try do
      fun.(conn)
    after
      GenServer.cast(pool, {:checkin, conn})
    end
  end

  @impl true
  def init(opts) do
    Process.flag(:trap_exit, true)
    {:ok, %__MODULE__{size: Keyword.fetch!(opts, :size), settings: Keyword.fetch!(opts, :settings)}}
  end

  @impl true
  def handle_call(:checkout, {caller, _} = from, state) do
    ref = Process.monitor(caller)

    case state.idle do
      [conn | idle] ->
        {:reply, conn, %{state | idle: idle, busy: Map.put(state.busy, conn, ref)}}

      [] when state.started < state.size ->
        {:ok, conn} = Connection.start_link(state.settings)
        {:reply, conn, %{state | started: state.started + 1, busy: Map.put(state.busy, conn, ref)}}

      [] ->
        {:noreply, %{state | waiting: :queue.in({from, ref}, state.waiting)}}
    end
  end

  @impl true
  def handle_cast({:checkin, conn}, state) do
    case Map.pop(state.busy, conn) do
      {nil, _} ->
        {:noreply, state}

      {ref, busy} ->
        Process.demonitor(ref, [:flush])
        {:noreply, hand_over(conn, %{state | busy: busy})}
    end
  end

  @impl true
  # A caller died: holding a connection (it goes to the next) or waiting (it leaves the queue).
  def handle_info({:DOWN, ref, :process, _, _}, state) do
    case Enum.find(state.busy, fn {_, r} -> r == ref end) do
      {conn, _} -> {:noreply, hand_over(conn, %{state | busy: Map.delete(state.busy, conn)})}
      nil -> {:noreply, %{state | waiting: :queue.filter(fn {_, r} -> r != ref end, state.waiting)}}
    end
  end

  # A connection process died: its place goes to the first waiting caller, if any.
  def handle_info({:EXIT, conn, _reason}, state) do
    {ref, busy} = Map.pop(state.busy, conn)
    if ref, do: Process.demonitor(ref, [:flush])
    state = %{state | busy: busy, idle: List.delete(state.idle, conn), started: state.started - 1}

    case :queue.out(state.waiting) do
      {{:value, {from, ref}}, waiting} ->
        {:ok, conn} = Connection.start_link(state.settings)
        GenServer.reply(from, conn)
        {:noreply, %{state | waiting: waiting, started: state.started + 1, busy: Map.put(state.busy, conn, ref)}}

      {:empty, _} ->
        {:noreply, state}
    end
  end

  defp hand_over(conn, state) do
    case :queue.out(state.waiting) do
      {{:value, {from, ref}}, waiting} ->
        GenServer.reply(from, conn)
        %{state | waiting: waiting, busy: Map.put(state.busy, conn, ref)}

      {:empty, _} ->
        %{state | idle: [conn | state.idle]}
    end
  end
end
