defmodule Concur.Application do
  @moduledoc """
  The supervision tree: the store's table owner, mochiweb's clock (the cached
  `Date` header), the database pool and the listener, in that order and
  `:rest_for_one`, since the listener's connections use all three.
  """
  use Application

  @impl true
  def start(_type, _args) do
    case Concur.Config.from_env(System.get_env()) do
      {:ok, config} ->
        Concur.Config.put(config)
        Concur.Database.LogFilter.install()
        Concur.Hello.init_page_counter()
        children = [Concur.Store, mochiweb_clock(), database_pool(config), Concur.HTTP.Listener.child_spec(config)]
        Supervisor.start_link(children, strategy: :rest_for_one, name: Concur.Supervisor)

      {:error, message} ->
        {:error, {:bad_config, message}}
    end
  end

  # CONCUR_DB_POOL bounds the one pool of the one OS process the VM is.
  defp database_pool(config) do
    {Concur.Database.Pool, size: config.db_pool, settings: [options: config.db || [], statements: Concur.Database.statements()]}
  end

  # mochiweb_http:start_link/1 would start the clock unsupervised; here it is a child.
  defp mochiweb_clock do
    %{id: :mochiweb_clock, start: {:mochiweb_clock, :start_link, []}}
  end
end
