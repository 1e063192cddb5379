# The end-to-end tests run the escript that the manifest's build makes
# (`MIX_ENV=prod mix escript.build`); a stale one would test old code.
escript = "_build/micro.escript"
sources = Path.wildcard("lib/**/*.ex") ++ ["mix.exs"]

case File.stat(escript, time: :posix) do
  {:ok, %{mtime: built}} ->
    stale = Enum.filter(sources, &(File.stat!(&1, time: :posix).mtime > built))

    if stale != [],
      do:
        raise(
          "#{escript} is older than #{Enum.join(stale, ", ")}: run MIX_ENV=prod mix escript.build"
        )

  {:error, _} ->
    raise "#{escript} is missing: run MIX_ENV=prod mix escript.build"
end

ExUnit.start()
