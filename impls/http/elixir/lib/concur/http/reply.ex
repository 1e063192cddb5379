defmodule Concur.HTTP.Reply do
  @moduledoc """
  Responses as plain values: mochiweb's `{status, headers, body}` triple, built
  by the handlers and sent by `Concur.HTTP.Connection`. Errors are `text/plain`
  with a one-line reason (SPEC §3).
  """

  @type t :: {100..599, [{String.t(), iodata()}], iodata()}

  @spec text(100..599, iodata()) :: t()
  def text(status, body), do: {status, [{"Content-Type", "text/plain"}], body}

  @spec ok() :: t()
  def ok, do: text(200, "OK")

  @spec json(100..599, term()) :: t()
  def json(status, value), do: {status, [{"Content-Type", "application/json"}], :jiffy.encode(value)}

  @spec error(400..599, String.t(), [{String.t(), iodata()}]) :: t()
  def error(status, reason, headers \\ []) do
    {status, [{"Content-Type", "text/plain"} | headers], [reason, ?\n]}
  end

  @doc """
  An error after which the connection must close: the request's body was
  not read (or not all of it), so the bytes that follow are not a request.
  """
  @spec error_and_close(400..599, String.t()) :: t()
  def error_and_close(status, reason), do: error(status, reason, [{"Connection", "close"}])

  @doc "Whether the response asks for the connection to be closed."
  @spec closes?(t()) :: boolean()
  def closes?({_status, headers, _body}), do: {"Connection", "close"} in headers
end
