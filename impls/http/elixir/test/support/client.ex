defmodule Concur.Test.Client do
  @moduledoc """
  A small HTTP/1.x client over `:gen_tcp`, so that the tests can send what an
  unusual client would (pipelined requests, one byte at a time, broken
  framing) and see exactly what came back, including whether the server
  closed the connection. Responses are parsed with the VM's HTTP packet parser.
  """

  defmodule Response do
    @moduledoc false
    defstruct [:version, :status, headers: %{}, body: ""]

    def header(%__MODULE__{headers: h}, name), do: Map.get(h, String.downcase(name))
  end

  defstruct [:socket, buffer: ""]

  @timeout 10_000

  def port, do: Concur.Config.get().port

  def connect do
    {:ok, socket} = :gen_tcp.connect(~c"127.0.0.1", port(), [:binary, active: false, nodelay: true])
    %__MODULE__{socket: socket}
  end

  def send_bytes(%__MODULE__{socket: socket} = conn, bytes) do
    :ok = :gen_tcp.send(socket, bytes)
    conn
  end

  def close(%__MODULE__{socket: socket}), do: :gen_tcp.close(socket)

  @doc "The bytes of one request; POSTs and bodies get a Content-Length."
  def request(method, target, body \\ "", headers \\ []) do
    lines = Enum.map(headers, fn {k, v} -> "#{k}: #{v}\r\n" end)
    length = if body != "" or method == "POST", do: "Content-Length: #{byte_size(body)}\r\n", else: ""
    IO.iodata_to_binary(["#{method} #{target} HTTP/1.1\r\nHost: 127.0.0.1\r\n", lines, length, "\r\n", body])
  end

  @doc "One request on a fresh connection."
  def call(method, target, body \\ "", headers \\ []) do
    conn = connect() |> send_bytes(request(method, target, body, headers))
    {response, conn} = read_response(conn, method == "HEAD")
    close(conn)
    response
  end

  def get(target), do: call("GET", target)
  def post(target, body), do: call("POST", target, body)

  @doc "Reads one response; bytes past it stay buffered in the returned conn."
  def read_response(conn, head? \\ false) do
    {{:http_response, version, status, _reason}, conn} = next_packet(conn, :http_bin)
    {headers, conn} = read_headers(conn, %{})
    response = %Response{version: version, status: status, headers: headers}
    {body, conn} = read_body(conn, response, head?)
    {%{response | body: body}, conn}
  end

  @doc "Whether the server closes the connection within `ms` (no bytes may arrive)."
  def closed_within?(%__MODULE__{socket: socket, buffer: ""}, ms) do
    match?({:error, :closed}, :gen_tcp.recv(socket, 0, ms))
  end

  defp read_headers(conn, acc) do
    case next_packet(conn, :httph_bin) do
      {:http_eoh, conn} -> {acc, conn}
      {{:http_header, _, name, _, value}, conn} -> read_headers(conn, Map.put(acc, String.downcase(to_string(name)), value))
    end
  end

  defp read_body(conn, %Response{status: status}, head?) when head? or status in 100..199 or status in [204, 304],
    do: {"", conn}

  defp read_body(conn, response, _head?) do
    cond do
      length = Response.header(response, "content-length") -> take(conn, String.to_integer(length))
      Response.header(response, "transfer-encoding") == "chunked" -> read_chunks(conn, [])
      true -> read_to_close(conn)
    end
  end

  defp read_chunks(conn, acc) do
    {line, conn} = take_line(conn)
    case String.to_integer(line, 16) do
      0 ->
        {_, conn} = take_line(conn)
        {IO.iodata_to_binary(Enum.reverse(acc)), conn}

      n ->
        {data, conn} = take(conn, n)
        {_, conn} = take_line(conn)
        read_chunks(conn, [data | acc])
    end
  end

  defp read_to_close(%__MODULE__{socket: socket, buffer: buffer} = conn) do
    case :gen_tcp.recv(socket, 0, @timeout) do
      {:ok, data} -> read_to_close(%{conn | buffer: buffer <> data})
      {:error, :closed} -> {buffer, %{conn | buffer: ""}}
    end
  end

  defp next_packet(%__MODULE__{buffer: buffer} = conn, type) do
    case :erlang.decode_packet(type, buffer, []) do
      {:ok, packet, rest} -> {packet, %{conn | buffer: rest}}
      {:more, _} -> conn |> fill() |> next_packet(type)
    end
  end

  defp take(%__MODULE__{buffer: buffer} = conn, n) when byte_size(buffer) >= n do
    <<data::binary-size(n), rest::binary>> = buffer
    {data, %{conn | buffer: rest}}
  end

  defp take(conn, n), do: conn |> fill() |> take(n)

  defp take_line(%__MODULE__{buffer: buffer} = conn) do
    case :binary.split(buffer, "\r\n") do
      [line, rest] -> {line, %{conn | buffer: rest}}
      [_] -> conn |> fill() |> take_line()
    end
  end

  defp fill(%__MODULE__{socket: socket, buffer: buffer} = conn) do
    {:ok, data} = :gen_tcp.recv(socket, 0, @timeout)
    %{conn | buffer: buffer <> data}
  end
end
