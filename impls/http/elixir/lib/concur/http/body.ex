defmodule Concur.HTTP.Body do
  @moduledoc """
  Request bodies: how one is framed (Content-Length or chunked, SPEC §4) and
  reading it under the 1 MiB limit (SPEC §3.5).

  mochiweb 3.1.1's `recv_body/2` is not used: for a chunked body it buffers a
  whole megabyte past the limit before refusing, it answers any
  `Expect: 100-continue` with a `100` that carries `Connection: close`, and
  it crashes on chunk extensions. The reading itself still goes through
  `:mochiweb_request.recv/3`, which also tells mochiweb's keep-alive logic
  that the body was consumed.
  """

  alias Concur.HTTP.Reply

  @limit 1_048_576
  @timeout 60_000
  @max_trailer_lines 64

  @type framing :: {:length, non_neg_integer()} | :chunked

  @doc "The body's framing, or the response refusing a request whose framing is broken."
  @spec framing(tuple()) :: {:ok, framing()} | {:error, Reply.t()}
  def framing(req) do
    case {header(req, ~c"transfer-encoding"), header(req, ~c"content-length")} do
      {nil, nil} ->
        {:ok, {:length, 0}}

      {nil, length} ->
        content_length(length)

      {coding, nil} ->
        if String.downcase(String.trim(coding)) == "chunked",
          do: {:ok, :chunked},
          else: {:error, Reply.error_and_close(501, "unsupported Transfer-Encoding: #{coding}")}

      {_, _} ->
        {:error, Reply.error_and_close(400, "both Transfer-Encoding and Content-Length given")}
    end
  end

  # Repeated Content-Length headers arrive joined by ", "; equal values are one length.
  defp content_length(value) do
    case value |> String.split(",") |> Enum.map(&String.trim/1) |> Enum.uniq() do
      [digits] when digits != "" ->
        if digits =~ ~r/\A[0-9]{1,18}\z/,
          do: {:ok, {:length, String.to_integer(digits)}},
          else: invalid_length(value)

      _ ->
        invalid_length(value)
    end
  end

  defp invalid_length(value),
    do: {:error, Reply.error_and_close(400, "invalid Content-Length: #{inspect(value)}")}

  @doc """
  Reads the whole body. A body over 1 MiB is refused as soon as its
  Content-Length, or the size line of the chunk that crosses the limit,
  shows it; nothing past the limit is read.
  """
  @spec read(tuple()) :: {:ok, binary()} | {:error, Reply.t()}
  def read(req) do
    with {:ok, framing} <- framing(req) do
      case framing do
        {:length, 0} ->
          {:ok, ""}

        {:length, n} when n > @limit ->
          {:error, too_large()}

        {:length, n} ->
          continue(req)
          {:ok, :mochiweb_request.recv(n, @timeout, req)}

        :chunked ->
          continue(req)
          read_chunks(req, 0, [])
      end
    end
  end

  @doc "Reads the whole body and decodes it as JSON (jiffy, objects as maps)."
  @spec read_json(tuple()) :: {:ok, term()} | {:error, Reply.t()}
  def read_json(req) do
    with {:ok, body} <- read(req) do
      try do
        {:ok, :jiffy.decode(body, [:return_maps])}
      catch
        kind, {position, reason} when kind in [:error, :throw] and is_integer(position) ->
          {:error, Reply.error(400, "body is not valid JSON: #{reason} at byte #{position}")}

        kind, reason when kind in [:error, :throw] ->
          {:error, Reply.error(400, "body is not valid JSON: #{inspect(reason)}")}
      end
    end
  end

  defp too_large, do: Reply.error_and_close(413, "request body over 1 MiB (1048576 bytes)")

  # The client waits for this before it sends the body (RFC 9110 §10.1.1).
  defp continue(req) do
    expect = header(req, ~c"expect")

    if expect && String.downcase(expect) == "100-continue" &&
         :mochiweb_request.get(:version, req) >= {1, 1} do
      :mochiweb_request.send("HTTP/1.1 100 Continue\r\n\r\n", req)
    end
  end

  defp read_chunks(req, size, acc) do
    case chunk_size(req) do
      {:ok, 0} ->
        with :ok <- skip_trailers(req, 0), do: {:ok, acc |> Enum.reverse() |> IO.iodata_to_binary()}

      {:ok, n} when size + n > @limit ->
        {:error, too_large()}

      {:ok, n} ->
        case :mochiweb_request.recv(n + 2, @timeout, req) do
          <<data::binary-size(n), "\r\n">> -> read_chunks(req, size + n, [data | acc])
          _ -> bad_chunk("chunk data is not followed by CRLF")
        end

      {:error, reason} ->
        bad_chunk(reason)
    end
  end

  # A chunk starts with its size in hex, maybe followed by ;extensions (ignored).
  defp chunk_size(req) do
    with {:ok, line} <- read_line(req) do
      [hex | _extensions] = :binary.split(line, ";")
      hex = String.trim_trailing(hex)

      if hex =~ ~r/\A[0-9A-Fa-f]{1,8}\z/,
        do: {:ok, String.to_integer(hex, 16)},
        else: {:error, "bad chunk size #{inspect(line)}"}
    end
  end

  defp skip_trailers(_req, lines) when lines > @max_trailer_lines, do: bad_chunk("too many trailer lines")

  defp skip_trailers(req, lines) do
    case read_line(req) do
      {:ok, ""} -> :ok
      {:ok, _field} -> skip_trailers(req, lines + 1)
      {:error, reason} -> bad_chunk(reason)
    end
  end

  # One CRLF-terminated line, without its CRLF; the VM's line packet mode does the scanning.
  defp read_line(req) do
    socket = :mochiweb_request.get(:socket, req)
    :ok = :mochiweb_socket.exit_if_closed(:mochiweb_socket.setopts(socket, packet: :line))
    received = :mochiweb_socket.recv(socket, 0, @timeout)
    :ok = :mochiweb_socket.exit_if_closed(:mochiweb_socket.setopts(socket, packet: :raw))

    case received do
      {:ok, line} ->
        case :binary.split(line, "\n") do
          [content, ""] -> {:ok, String.trim_trailing(content, "\r")}
          _ -> {:error, "chunk line too long"}
        end

      {:error, reason} ->
        exit({:shutdown, reason})
    end
  end

  defp bad_chunk(reason), do: {:error, Reply.error_and_close(400, "malformed chunked body: #{reason}")}

  defp header(req, name) do
    case :mochiweb_request.get_header_value(name, req) do
      :undefined -> nil
      value -> List.to_string(value)
    end
  end
end
