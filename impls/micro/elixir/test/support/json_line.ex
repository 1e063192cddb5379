defmodule JsonLine do
  @moduledoc """
  A strict JSON decoder for the result line (Elixir 1.14 has no JSON module
  and the project has no dependencies): objects, strings without escapes,
  numbers, true/false/null. Anything else, or a duplicate key, raises.
  """

  def decode(text) do
    {value, rest} = value(skip(text))
    "" = skip(rest)
    value
  end

  defp value("{" <> rest), do: members(skip(rest), %{})
  defp value("\"" <> rest), do: string(rest)
  defp value("true" <> rest), do: {true, rest}
  defp value("false" <> rest), do: {false, rest}
  defp value("null" <> rest), do: {nil, rest}
  defp value(text), do: number(text)

  defp members("}" <> rest, map) when map_size(map) == 0, do: {map, rest}

  defp members("\"" <> text, map) do
    {key, ":" <> after_colon} = string(text)
    {value, after_value} = value(skip(after_colon))
    false = Map.has_key?(map, key)

    case skip(after_value) do
      "," <> rest -> members(skip(rest), Map.put(map, key, value))
      "}" <> rest -> {Map.put(map, key, value), rest}
    end
  end

  defp string(text) do
    [string, rest] = String.split(text, "\"", parts: 2)
    false = String.contains?(string, "\\")
    {string, rest}
  end

  defp number(text) do
    [number] =
      Regex.run(~r/\A-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/, text, capture: :first)

    rest = binary_part(text, byte_size(number), byte_size(text) - byte_size(number))

    if number =~ ~r/[.eE]/ do
      {float, ""} = Float.parse(number)
      {float, rest}
    else
      {String.to_integer(number), rest}
    end
  end

  defp skip(<<c, rest::binary>>) when c in ~c" \t\r\n", do: skip(rest)
  defp skip(text), do: text
end
