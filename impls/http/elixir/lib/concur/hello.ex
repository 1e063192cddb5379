defmodule Concur.Hello do
  @moduledoc """
  The routes without state: `/` and `/json` (the wrk repository's hello
  worlds), `/page` (the blog series' file server, every Nth request delayed)
  and `/longPoll` (the thesis' Listing 30).

  The waits are `Process.sleep/1`, as in the thesis: it parks only this
  connection's process on a timer, and the schedulers run the others.
  """

  alias Concur.Config
  alias Concur.HTTP.Reply

  def root(_req), do: Reply.text(200, "Hello, World!")

  # Built from a map on every request, as the wrk repository's servers do.
  def json(_req), do: Reply.json(200, %{message: "Hello, World!"})

  def page(_req) do
    config = Config.get()
    # One counter for the whole server (one VM), counted from 1; add_get is atomic.
    n = :atomics.add_get(page_counter(), 1, 1)
    if rem(n, config.page_delay_every) == 0, do: Process.sleep(config.page_delay_ms)

    case File.read(config.page_file) do
      {:ok, html} ->
        {200, [{"Content-Type", "text/html; charset=utf-8"}], html}

      {:error, reason} ->
        Reply.error(500, "cannot read CONCUR_PAGE_FILE #{config.page_file}: #{:file.format_error(reason)}")
    end
  end

  def long_poll(_req) do
    Process.sleep(Config.get().longpoll_ms)
    Reply.ok()
  end

  @doc "Creates the /page request counter; called once as the application starts."
  def init_page_counter do
    :persistent_term.put({__MODULE__, :page_counter}, :atomics.new(1, signed: false))
  end

  defp page_counter, do: :persistent_term.get({__MODULE__, :page_counter})
end
