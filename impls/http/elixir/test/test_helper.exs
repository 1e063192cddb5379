# The application runs once for all tests, on a free port, with short waits
# and the cheapest bcrypt cost, on a real PostgreSQL (Concur.Test.Database)
# with a pool of 4 and a slow query of 100 ms; the tests talk to it over
# real sockets.
{:ok, probe} = :gen_tcp.listen(0, ip: {127, 0, 0, 1})
{:ok, port} = :inet.port(probe)
:gen_tcp.close(probe)

for {name, value} <- [
      {"PORT", port},
      {"CONCUR_BCRYPT_COST", 4},
      {"CONCUR_PAGE_DELAY_EVERY", 4},
      {"CONCUR_PAGE_DELAY_MS", 400},
      {"CONCUR_LONGPOLL_MS", 300},
      {"CONCUR_PAGE_FILE", Path.expand("../../../spec/static/hello.html")},
      {"CONCUR_DB_URL", Concur.Test.Database.url()},
      {"CONCUR_DB_POOL", 4},
      {"CONCUR_DB_SLOW_MS", 100}
    ] do
  System.put_env(name, to_string(value))
end

{:ok, _} = Application.ensure_all_started(:concur)
ExUnit.start()
