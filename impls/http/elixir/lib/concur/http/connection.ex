defmodule Concur.HTTP.Connection do
  @moduledoc """
  One TCP connection, served by one Erlang process from accept to close.

  mochiweb's acceptor calls `serve/2` with the accepted socket. The loop reads
  a request line and headers with the VM's own HTTP packet parser, makes a
  mochiweb request of them, has `Concur.Router` answer it, and goes on while
  keep-alive allows: pipelined requests simply wait in the socket's buffer.

  This is `mochiweb_http:loop/3` of mochiweb 3.1.1 with what SPEC §3.1 adds:
  that loop has no clause for a line the parser rejects (`{http_error, Line}`),
  so after a garbage request line or header it waited out its timeout (300 s
  or 30 s) and closed without an answer. Here such a request gets a 400, as
  do an unsupported HTTP version, a missing `Host` (RFC 9112 §3.2) and broken
  body framing.
  """

  alias Concur.HTTP.{Body, Reply}
  require Logger

  @server "concur-elixir"
  # mochiweb_http's limits: how long an idle keep-alive connection and a
  # request's headers may take, and how many header lines a request may have.
  @idle_timeout 300_000
  @headers_timeout 30_000
  @max_headers 1000
  # mochiweb takes its reason phrases from inets (httpd_util), which still
  # says "Object Not Found"; these are RFC 9110's.
  @reasons %{404 => "404 Not Found", 413 => "413 Content Too Large"}

  @doc "Serves `socket` until the client or a response closes it."
  @spec serve(term(), list()) :: :ok
  def serve(socket, opts) do
    setopts(socket, packet: :http)

    case :mochiweb_socket.recv(socket, 0, @idle_timeout) do
      {:ok, {:http_request, method, target, {1, _} = version}} ->
        setopts(socket, packet: :httph)
        read_headers(socket, opts, {method, target, version}, [], 0)

      {:ok, {:http_request, _method, _target, {major, minor}}} ->
        reject(socket, opts, "unsupported HTTP version #{major}.#{minor}")

      # RFC 9112 §2.2: empty lines before a request line are to be ignored.
      {:ok, {:http_error, line}} when line in [~c"\r\n", ~c"\n"] ->
        serve(socket, opts)

      {:ok, {:http_error, _line}} ->
        reject(socket, opts, "malformed request line")

      {:error, :emsgsize} ->
        reject(socket, opts, "request line too long")

      {:error, _closed_or_idle} ->
        :mochiweb_socket.close(socket)
    end
  end

  defp read_headers(socket, opts, _request, _headers, count) when count > @max_headers do
    reject(socket, opts, "more than #{@max_headers} header lines")
  end

  defp read_headers(socket, opts, request, headers, count) do
    case :mochiweb_socket.recv(socket, 0, @headers_timeout) do
      {:ok, {:http_header, _, name, _, value}} ->
        read_headers(socket, opts, request, [{name, value} | headers], count + 1)

      {:ok, :http_eoh} ->
        setopts(socket, packet: :raw)
        req = :mochiweb.new_request({socket, opts, request, Enum.reverse(headers)})
        answer(socket, opts, req)

      {:ok, {:http_error, _line}} ->
        reject(socket, opts, "malformed header line")

      {:error, :emsgsize} ->
        reject(socket, opts, "header line too long")

      {:error, _closed_or_timeout} ->
        :mochiweb_socket.close(socket)
    end
  end

  defp answer(socket, opts, req) do
    with :ok <- check_host(req),
         {:ok, _framing} <- Body.framing(req) do
      response = route(req)
      closing = Reply.closes?(response) or :mochiweb_request.should_close(req)
      send_response(req, response, closing)
      if closing, do: :mochiweb_socket.close(socket), else: next(socket, opts, req)
    else
      # mochiweb's keep-alive logic cannot digest a broken Content-Length, so
      # this answer goes out as if to a bare request, like a malformed one.
      {:error, response} -> reject(socket, opts, response)
    end
  end

  # Forget this request's cached state (mochiweb keeps it in the process
  # dictionary). mochiweb_http also forces a full garbage collection here;
  # Cowboy and Bandit do not, and the BEAM's generational collector reclaims
  # a request's garbage on its own, so this loop leaves it to the VM (README).
  defp next(socket, opts, req) do
    :mochiweb_request.cleanup(req)
    serve(socket, opts)
  end

  defp route(req) do
    Concur.Router.handle(req)
  rescue
    # A bug, not bad input: answer it, log it, and drop the connection.
    exception ->
      Logger.error(Exception.format(:error, exception, __STACKTRACE__))
      reason = exception |> Exception.message() |> String.replace("\n", " ")
      Reply.error_and_close(500, "internal error: " <> reason)
  end

  defp check_host(req) do
    missing? =
      :mochiweb_request.get(:version, req) >= {1, 1} and
        :mochiweb_request.get_header_value(~c"host", req) == :undefined

    if missing?, do: {:error, Reply.error_and_close(400, "an HTTP/1.1 request needs a Host header")}, else: :ok
  end

  defp send_response(req, {status, headers, body}, closing) do
    headers = [{"Server", @server} | headers]
    # mochiweb adds "Connection: close" when it closes, but an HTTP/1.0 client
    # only keeps the connection if told so.
    headers =
      if not closing and :mochiweb_request.get(:version, req) == {1, 0},
        do: [{"Connection", "keep-alive"} | headers],
        else: headers

    :mochiweb_request.respond({Map.get(@reasons, status, status), headers, body}, req)
  end

  # Answers what cannot be taken as a request as if it had been a bare
  # "GET / HTTP/1.1", then closes.
  defp reject(socket, opts, reason) when is_binary(reason) do
    reject(socket, opts, Reply.error_and_close(400, reason))
  end

  defp reject(socket, opts, response) do
    setopts(socket, packet: :raw)
    req = :mochiweb.new_request({socket, opts, {:GET, {:abs_path, ~c"/"}, {1, 1}}, []})
    send_response(req, response, true)
    :mochiweb_socket.close(socket)
  end

  defp setopts(socket, options) do
    :ok = :mochiweb_socket.exit_if_closed(:mochiweb_socket.setopts(socket, options))
  end
end
