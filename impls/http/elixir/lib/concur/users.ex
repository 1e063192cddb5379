defmodule Concur.Users do
  @moduledoc """
  `/user/set/{user}` and `/user/get/{user}`: any JSON object per user, kept
  decoded in the user store and encoded again on every get (the thesis'
  Listing 31).
  """

  alias Concur.Store
  alias Concur.HTTP.{Body, Reply}

  def set(req, user) do
    case Body.read_json(req) do
      {:ok, info} when is_map(info) ->
        Store.put_user(user, info)
        Reply.ok()

      {:ok, _} ->
        Reply.error(400, "user info must be a JSON object")

      {:error, response} ->
        response
    end
  end

  def get(_req, user) do
    case Store.user(user) do
      {:ok, info} -> Reply.json(200, info)
      :error -> Reply.error(404, "no user info for #{user}")
    end
  end
end
