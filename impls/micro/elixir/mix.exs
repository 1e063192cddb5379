defmodule Micro.MixProject do
  use Mix.Project

  def project do
    [
      app: :micro,
      version: "1.0.0",
      elixir: "~> 1.14",
      start_permanent: false,
      deps: [],
      elixirc_paths: elixirc_paths(Mix.env()),
      escript: [main_module: Micro.CLI, path: "_build/micro.escript", app: nil]
    ]
  end

  def application, do: []

  # The JSON decoder the tests use to read the result line.
  defp elixirc_paths(:test), do: ["lib", "test/support"]
  defp elixirc_paths(_), do: ["lib"]
end
