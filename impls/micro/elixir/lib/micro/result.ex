defmodule Micro.Result do
  @moduledoc """
  The result line of spec/MICRO.md §7: a map built by each benchmark, the
  final count check of §3.1, and a JSON encoder for the few types it holds
  (Elixir 1.14 has no JSON module and hex.pm is not a dependency here).
  """

  @doc """
  The fields every benchmark has; ns_per_op is elapsed/ops unless the
  benchmark overrides it, and 0 when no op completed (pairs with no round
  trip, spec §4.5): JSON has no infinity. Main adds `bench`.
  """
  def new(params, ops, elapsed_ns, received, expected) do
    %{
      schema: 1,
      runtime: "elixir",
      params: Map.put(params, :cores, :erlang.system_info(:schedulers_online)),
      ops: ops,
      elapsed_ns: elapsed_ns,
      ns_per_op: if(ops == 0, do: 0.0, else: elapsed_ns / ops),
      checks: %{received: received, expected: expected}
    }
  end

  # supervised (spec §4.7): a kill may lose the message in flight, so what
  # was received plus what was lost is what was sent. Lost against kills is
  # checked per pair, where the counts are (Micro.Supervised.result/7).
  def verify(%{checks: %{received: received, expected: expected}, lost: lost}) do
    if received + lost == expected,
      do: :ok,
      else: {:error, "received #{received} messages and lost #{lost}, expected #{expected}"}
  end

  def verify(%{checks: %{received: same, expected: same}}), do: :ok

  def verify(%{checks: %{received: received, expected: expected}}),
    do: {:error, "received #{received} messages, expected #{expected}"}

  @doc "Keys and strings are our own ASCII names: nothing to escape."
  def to_json(map) when is_map(map) do
    fields = for {key, value} <- Enum.sort(map), do: [?", to_string(key), ?", ?:, to_json(value)]
    [?{, Enum.intersperse(fields, ?,), ?}]
  end

  def to_json(value) when is_atom(value) or is_binary(value), do: [?", to_string(value), ?"]
  def to_json(value) when is_number(value), do: number(value)

  @doc "Plain decimals, never an exponent."
  def number(n) when is_integer(n), do: Integer.to_string(n)
  def number(f) when is_float(f), do: :erlang.float_to_binary(f, [{:decimals, 4}, :compact])
end
