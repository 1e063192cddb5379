defmodule Concur do
  @moduledoc """
  The Concur HTTP workload (spec/SPEC.md) on the BEAM: mochiweb accepts the
  connections, one Erlang process serves each of them, and two ETS tables
  hold the stores.

  `main/0` is what the start command runs: it refuses a bad environment with a
  sentence naming the variable, then starts the `:concur` application and
  leaves the VM running it until SIGTERM (which OTP turns into `init:stop/0`).
  """

  @doc "Checks the environment and starts the server; halts the VM when it cannot."
  def main do
    with {:ok, config} <- Concur.Config.from_env(System.get_env()),
         {:ok, _} <- Application.ensure_all_started(:concur) do
      IO.puts("concur-elixir listening on http://127.0.0.1:#{config.port}")
    else
      {:error, message} when is_binary(message) -> halt(message, 2)
      {:error, reason} -> halt("cannot start: #{inspect(reason)}", 1)
    end
  end

  defp halt(message, status) do
    IO.puts(:stderr, "concur-elixir: " <> message)
    System.halt(status)
  end
end
