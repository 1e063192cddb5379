defmodule Concur.Store do
  @moduledoc """
  The two stores of the contract, user → bcrypt hash and user → JSON object,
  as two named ETS tables, as the thesis' Elixir service kept them.

  This process only owns the tables: they live as long as it does, and its
  supervisor restarts it (empty) should it ever die. Connection processes
  read and write the public tables directly, so no request waits in this
  process's mailbox. `read_concurrency` and `write_concurrency` let readers
  and writers of different users proceed in parallel on every scheduler.
  """
  use GenServer

  @passwords :concur_passwords
  @users :concur_users

  def start_link(_), do: GenServer.start_link(__MODULE__, :ok, name: __MODULE__)

  @spec put_password(String.t(), binary()) :: true
  def put_password(user, hash), do: :ets.insert(@passwords, {user, hash})

  @spec password(String.t()) :: {:ok, binary()} | :error
  def password(user), do: lookup(@passwords, user)

  @spec put_user(String.t(), map()) :: true
  def put_user(user, info), do: :ets.insert(@users, {user, info})

  @spec user(String.t()) :: {:ok, map()} | :error
  def user(user), do: lookup(@users, user)

  defp lookup(table, key) do
    case :ets.lookup(table, key) do
      [{^key, value}] -> {:ok, value}
      [] -> :error
    end
  end

  @impl true
  def init(:ok) do
    options = [:set, :public, :named_table, read_concurrency: true, write_concurrency: true]
    :ets.new(@passwords, options)
    :ets.new(@users, options)
    {:ok, nil}
  end
end
