defmodule Concur.Passwords do
  @moduledoc """
  `/password/set/{user}` and `/password/verify/{user}`: bcrypt hashes at
  `CONCUR_BCRYPT_COST` in the password store (the thesis' Listing 32).
  """

  alias Concur.{Bcrypt, Config, Store}
  alias Concur.HTTP.{Body, Reply}

  def set(req, user) do
    with {:ok, password} <- read_password(req) do
      {:ok, hash} = Bcrypt.hash(password, Config.get().bcrypt_cost)
      Store.put_password(user, hash)
      Reply.ok()
    else
      {:error, response} -> response
    end
  end

  def verify(req, user) do
    with {:ok, password} <- read_password(req) do
      case Store.password(user) do
        {:ok, hash} ->
          if Bcrypt.verify(password, hash),
            do: Reply.ok(),
            else: Reply.error(403, "wrong password for user #{user}")

        :error ->
          # Hash anyway, so that an unknown user takes as long as a known one
          # and the answer's timing does not tell which users exist.
          {:ok, _} = Bcrypt.hash(password, Config.get().bcrypt_cost)
          Reply.error(404, "no password is set for user #{user}")
      end
    else
      {:error, response} -> response
    end
  end

  defp read_password(req) do
    case Body.read_json(req) do
      {:ok, %{"password" => password}} when is_binary(password) -> check(password)
      {:ok, _} -> {:error, Reply.error(400, ~s(body must be a JSON object with a string member "password"))}
      {:error, response} -> {:error, response}
    end
  end

  # bcrypt reads 72 bytes and stops at a NUL; the contract refuses rather than truncates.
  defp check(password) do
    cond do
      byte_size(password) > 72 -> {:error, Reply.error(400, "password longer than 72 bytes (bcrypt's limit)")}
      String.contains?(password, <<0>>) -> {:error, Reply.error(400, "password contains a NUL character")}
      true -> {:ok, password}
    end
  end
end
