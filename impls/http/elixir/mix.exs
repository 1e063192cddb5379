defmodule Concur.MixProject do
  use Mix.Project

  def project do
    [
      app: :concur,
      version: "1.0.0",
      elixir: "~> 1.14",
      # The NIF is built first, by the small compiler at the end of this file.
      compilers: [:concur_nif | Mix.compilers()],
      start_permanent: Mix.env() == :prod,
      elixirc_paths: elixirc_paths(Mix.env()),
      deps: [],
      aliases: [
        # The tests start the application themselves, on a free port.
        test: "test --no-start"
      ]
    ]
  end

  defp elixirc_paths(:test), do: ["lib", "test/support"]
  defp elixirc_paths(_), do: ["lib"]

  # mochiweb, jiffy and p1_pgsql are Debian's (erlang-mochiweb, erlang-jiffy,
  # erlang-p1-pgsql): they sit in the OTP library folder, so they are
  # applications here, not deps. p1_pgsql's SCRAM login goes through
  # p1_xmpp's scram module, which needs crypto and stringprep's NIF (loaded
  # when the stringprep application starts), and its .app names neither.
  def application do
    [
      mod: {Concur.Application, []},
      extra_applications: [:logger, :eex, :crypto, :stringprep, :mochiweb, :jiffy, :p1_pgsql]
    ]
  end
end

defmodule Mix.Tasks.Compile.ConcurNif do
  @moduledoc "Builds priv/concur_bcrypt.so with `make -C c_src` (elixir_make's job; it lives on hex)."
  use Mix.Task.Compiler

  @impl true
  def run(_args) do
    case System.cmd("make", ["-s", "-C", "c_src"], stderr_to_stdout: true) do
      {_, 0} ->
        # Mix links _build/*/lib/concur/priv to priv/ only if priv/ existed
        # when the build began; on a fresh checkout make has just created it.
        Mix.Project.build_structure()
        {:ok, []}

      {output, status} ->
        Mix.shell().error(output)
        Mix.raise("make -C c_src failed with status #{status}")
    end
  end
end
