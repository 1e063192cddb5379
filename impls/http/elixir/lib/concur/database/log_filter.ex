defmodule Concur.Database.LogFilter do
  @moduledoc """
  p1_pgsql ends a connection's processes by crashing them: when the
  database closes the socket, `pgsql_socket` and `pgsql_proto` stop with
  `:tcp_close` and `{:socket, :closed}`, and a refused login stops
  `pgsql_proto` in its `init/1`. OTP logs each as an error report that
  prints the process's state or start arguments, with the database
  password in them. This primary logger filter turns those reports into
  one line without the state; every other event passes unchanged.
  """

  @doc "Installs the filter; called once as the application starts."
  def install, do: :logger.add_primary_filter(__MODULE__, {&filter/2, []})

  @doc false
  def filter(%{msg: {:report, %{label: {:gen_server, :terminate}, reason: reason}}} = event, _) do
    if connection_ended?(reason), do: one_line(event, reason), else: :ignore
  end

  def filter(%{msg: {:report, %{label: {:proc_lib, :crash}, report: [info | _]}}} = event, _) when is_list(info) do
    case Keyword.get(info, :initial_call) do
      {module, _, _} when module in [:pgsql_proto, :pgsql_socket] ->
        {_class, reason, _stack} = Keyword.get(info, :error_info, {:exit, :unknown, []})
        one_line(event, reason)

      _ ->
        :ignore
    end
  end

  def filter(_event, _), do: :ignore

  defp connection_ended?(reason), do: reason in [:tcp_close, :tcp_error] or match?({:socket, _}, reason)

  defp one_line(event, reason) do
    %{event | level: :warning, msg: {:string, "p1_pgsql: a database connection ended: #{inspect(reason, limit: 6, printable_limit: 200)}"}}
  end
end
