defmodule Concur.Database.LogFilterTest do
  use ExUnit.Case, async: true
  alias Concur.Database.LogFilter

  @state {:state, [host: "127.0.0.1", user: "u", password: "secret"], :tcp}

  test "a pgsql connection's end is one line without its state" do
    event = %{level: :error, meta: %{}, msg: {:report, %{label: {:gen_server, :terminate}, reason: {:socket, :closed}, state: @state, last_message: :x}}}
    assert %{level: :warning, msg: {:string, line}} = LogFilter.filter(event, [])
    assert line =~ "a database connection ended: {:socket, :closed}"
    refute line =~ "secret"
  end

  test "a refused login (pgsql_proto's init crashing) is one line without its arguments" do
    info = [initial_call: {:pgsql_proto, :init, [[self(), [password: "secret"]]]}, error_info: {:exit, {:authentication, [message: "refused"]}, []}]
    event = %{level: :error, meta: %{}, msg: {:report, %{label: {:proc_lib, :crash}, report: [info, []]}}}
    assert %{msg: {:string, line}} = LogFilter.filter(event, [])
    assert line =~ "refused" and not (line =~ "secret")
  end

  test "every other report passes unchanged" do
    other = %{level: :error, meta: %{}, msg: {:report, %{label: {:gen_server, :terminate}, reason: :badarg, state: @state}}}
    assert LogFilter.filter(other, []) == :ignore
  end
end
