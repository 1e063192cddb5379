defmodule Concur.Fortunes do
  @moduledoc """
  The fortunes page of SPEC §8.3, TechEmpower's, from the EEx template
  `fortunes.html.eex`, compiled into `page/1` when this module is. EEx (in
  Elixir itself) escapes nothing; Phoenix's engine and Plug's
  `Plug.HTML.html_escape/1` would, and neither is reachable without Hex, so
  the template calls `escape/1`, which escapes what Plug's does.
  """
  require EEx

  @added %{id: 0, message: "Additional fortune added at request time."}
  @escapes %{"&" => "&amp;", "<" => "&lt;", ">" => "&gt;", "\"" => "&quot;", "'" => "&#39;"}

  @template Path.join(__DIR__, "fortunes.html.eex")
  @external_resource @template
  EEx.function_from_file(:defp, :render, @template, [:fortunes])

  @doc "The page of the stored fortunes and the one added now, sorted by message (byte order of UTF-8 is code point order)."
  def page(stored), do: render(Enum.sort_by([@added | stored], & &1.message))

  @doc "`text` safe in an HTML element or a quoted attribute."
  def escape(text), do: String.replace(text, Map.keys(@escapes), &Map.fetch!(@escapes, &1))
end
