defmodule Concur.HTTP.Listener do
  @moduledoc """
  mochiweb's socket server on 127.0.0.1:$PORT: a pool of acceptor processes,
  each of which becomes the process of the connection it accepts and runs
  `Concur.HTTP.Connection.serve/2` on it.
  """

  # mochiweb's default cap of 2048 open connections would refuse most of the
  # thesis' 8000 long-poll clients; the file-descriptor limit is the real cap.
  @max_connections 100_000

  @spec child_spec(Concur.Config.t()) :: Supervisor.child_spec()
  def child_spec(config) do
    options = [
      name: :concur_http,
      ip: {127, 0, 0, 1},
      port: config.port,
      loop: {Concur.HTTP.Connection, :serve},
      max: @max_connections,
      # A burst of new connections (a load test's start) queues in the kernel
      # until an acceptor takes it; 128 would drop SYNs under such a burst.
      backlog: 4096,
      acceptor_pool_size: 100,
      nodelay: true,
      # Keep the kernel's autotuned socket buffers instead of mochiweb's 8 KiB.
      recbuf: :undefined
    ]

    %{id: __MODULE__, start: {:mochiweb_socket_server, :start_link, [options]}, type: :worker}
  end
end
