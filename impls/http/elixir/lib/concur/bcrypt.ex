defmodule Concur.Bcrypt do
  @moduledoc """
  bcrypt through a NIF over libxcrypt (`c_src/concur_bcrypt.c`), loaded from
  `priv/` when this module is loaded.

  New hashes are `$2b$`; `verify/2` also takes the `$2a$` hashes other
  runtimes make, and compares in constant time. Both run on dirty CPU
  schedulers, so a hash never stalls the schedulers serving requests.
  """

  @on_load :load_nif

  @doc false
  def load_nif do
    path = :filename.join(:code.priv_dir(:concur), ~c"concur_bcrypt")
    :erlang.load_nif(path, 0)
  end

  @doc """
  Hashes `password` (at most 72 bytes, no NUL byte) with a fresh random salt
  at `cost` (4..31).
  """
  @spec hash(binary(), 4..31) :: {:ok, binary()} | {:error, atom()}
  def hash(_password, _cost), do: :erlang.nif_error(:nif_not_loaded)

  @doc "Whether `password` matches the bcrypt `hash`."
  @spec verify(binary(), binary()) :: boolean()
  def verify(_password, _hash), do: :erlang.nif_error(:nif_not_loaded)
end
