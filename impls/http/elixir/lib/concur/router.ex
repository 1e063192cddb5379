defmodule Concur.Router do
  @moduledoc """
  The route table of SPEC §2 (and §8's database routes) and the first rules of §3, in their order: an
  unknown path is 404, a known path with another method 405 (with `Allow`),
  a `{user}` outside `[A-Za-z0-9_.-]{1,64}` 400. The handlers then read and
  check the body themselves (413, 400).

  Routing is on the raw request target, before any percent-decoding, so
  `%41` or `a%2Fb` is refused as a user name rather than decoded into one.
  """

  alias Concur.{Config, Database, Faults, Hello, Passwords, Users}
  alias Concur.HTTP.Reply

  @get ["GET", "HEAD"]
  @post ["POST"]
  @user_name ~r/\A[A-Za-z0-9_.\-]{1,64}\z/

  @doc "Answers one request with a `Concur.HTTP.Reply` triple."
  @spec handle(tuple()) :: Reply.t()
  def handle(req) do
    method = to_string(:mochiweb_request.get(:method, req))
    path = path(req)

    case route(path) do
      nil ->
        Reply.error(404, "not found: #{path}")

      {allowed, handler, args} ->
        cond do
          method not in allowed ->
            allow = Enum.join(allowed, ", ")
            Reply.error(405, "method #{method} not allowed on #{path} (allowed: #{allow})", [{"Allow", allow}])

          not Enum.all?(args, &Regex.match?(@user_name, &1)) ->
            Reply.error(400, "invalid user name: must match [A-Za-z0-9_.-]{1,64}")

          true ->
            apply(handler, [req | args])
        end
    end
  end

  # {methods, handler, the path's arguments to the handler}
  defp route("/"), do: {@get, &Hello.root/1, []}
  defp route("/json"), do: {@get, &Hello.json/1, []}
  defp route("/page"), do: {@get, &Hello.page/1, []}
  defp route("/longPoll"), do: {@get, &Hello.long_poll/1, []}
  defp route("/db"), do: {@get, &Database.single/1, []}
  defp route("/queries"), do: {@get, &Database.queries/1, []}
  defp route("/updates"), do: {@get, &Database.updates/1, []}
  defp route("/fortunes"), do: {@get, &Database.fortunes/1, []}
  defp route("/slowdb"), do: {@get, &Database.slow/1, []}
  defp route("/fault/panic"), do: fault({@get, &Faults.panic/1, []})
  defp route("/fault/spin"), do: fault({@get, &Faults.spin/1, []})
  defp route("/password/set/" <> user), do: {@post, &Passwords.set/2, [user]}
  defp route("/password/verify/" <> user), do: {@post, &Passwords.verify/2, [user]}
  defp route("/user/set/" <> user), do: {@post, &Users.set/2, [user]}
  defp route("/user/get/" <> user), do: {@get, &Users.get/2, [user]}
  defp route(_), do: nil

  # The fault routes of SPEC §9 are unknown paths unless CONCUR_FAULTS=1.
  defp fault(route), do: if(Config.get().faults, do: route)

  # The raw target's path (mochiweb already took the path out of an absolute
  # form such as http://host/json); the query string is ignored.
  defp path(req) do
    raw = :erlang.list_to_binary(:mochiweb_request.get(:raw_path, req))
    [path | _query] = :binary.split(raw, "?")
    path
  end
end
