defmodule Concur.Faults do
  @moduledoc """
  The fault routes of SPEC §9, routed only when `CONCUR_FAULTS=1`: a handler
  that fails as a bug would, and one that computes without yielding.

  Both run in the connection's own process, as every handler does. The
  `raise` is left to what catches it by default (`Concur.HTTP.Connection`
  answers any exception of a handler with a 500 and drops the connection);
  the spin's process is preempted by the BEAM when its reductions run out,
  so the other processes on its scheduler still run.
  """

  alias Concur.HTTP.Reply

  @max_spin_ms 10_000

  def panic(_req), do: raise("fault: /fault/panic")

  def spin(req) do
    until = System.monotonic_time() + System.convert_time_unit(spin_ms(req), :millisecond, :native)
    spin_until(until)
    Reply.ok()
  end

  defp spin_until(until) do
    if System.monotonic_time() < until, do: spin_until(until)
  end

  @doc "`ms` of the request's query string, clamped to 0..10000 as `queries` is; anything but an integer counts as 0."
  def spin_ms(req) do
    with value when is_list(value) <- :proplists.get_value(~c"ms", :mochiweb_request.parse_qs(req)),
         {n, ""} <- Integer.parse(to_string(value)) do
      n |> max(0) |> min(@max_spin_ms)
    else
      _ -> 0
    end
  end
end
