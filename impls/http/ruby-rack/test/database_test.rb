# frozen_string_literal: true

require_relative "test_helper"
require_relative "database_helper"

# The database routes of SPEC §8 against a real PostgreSQL, served by a real
# Puma cluster of two workers sharing CONCUR_DB_POOL=4.
class DatabaseTest < Minitest::Test
  POOL = 4
  SLOW_MS = 50

  # A server of its own for each test: a test that ends the server's
  # connections leaves no dead one in a pool another test would use.
  def setup
    @pg = TestDatabase.connect
    @since = @pg.exec("SELECT now()").getvalue(0, 0) # the database's clock when the server starts
    @server = PumaProcess.new(workers: 2, env: { "CONCUR_DB_URL" => TestDatabase.url, "CONCUR_DB_POOL" => POOL.to_s,
                                                 "CONCUR_DB_SLOW_MS" => SLOW_MS.to_s })
  end

  def teardown
    @server.stop
    @pg.close
  end

  attr_reader :server

  def test_db_answers_a_row_as_stored
    ids = 5.times.map do
      row = rows(server.get("/db"))
      assert_equal %w[id randomNumber], row.keys
      assert_equal stored(row["id"]), row["randomNumber"]
      row["id"]
    end
    assert_operator ids.uniq.size, :>, 1
  end

  def test_queries_clamps_n_and_reads_as_stored
    { "" => 1, "?queries=" => 1, "?queries=foo" => 1, "?queries=0" => 1, "?queries=-3" => 1, "?queries=1" => 1,
      "?queries=20" => 20, "?queries=500" => 500, "?queries=501" => 500, "?queries=99999999999999999999" => 500 }.each do |query, want|
      assert_equal want, rows(server.get("/queries#{query}")).size, query
    end
    rows(server.get("/queries?queries=3")).each { |row| assert_equal stored(row["id"]), row["randomNumber"] }
  end

  def test_updates_write_the_new_numbers
    answered = rows(server.get("/updates?queries=20"))
    assert_equal 20, answered.size
    answered.group_by { |row| row["id"] }.each do |id, drawn|
      assert_includes drawn.map { |row| row["randomNumber"] }, stored(id), "row #{id}"
    end
  end

  def test_fortunes_page_is_sorted_and_escaped
    r = server.get("/fortunes")
    assert_equal ["200", "text/html; charset=utf-8"], [r.code, r["Content-Type"]]
    assert_equal File.read(File.join(__dir__, "fortunes.html")), r.body.force_encoding(Encoding::UTF_8)
  end

  def test_slowdb_waits_in_the_database
    started = now
    row = rows(server.get("/slowdb"))
    assert_operator now - started, :>=, SLOW_MS / 1000.0
    assert_equal stored(row["id"]), row["randomNumber"]
  end

  # 32 concurrent requests, two workers: never more than CONCUR_DB_POOL
  # connections in all (pg_stat_activity), and every request waits its turn.
  def test_pool_bound_holds_across_workers
    peak = 0
    sampling = true
    sampler = Thread.new do
      while sampling
        peak = [peak, server_connections].max
        sleep 0.005
      end
    end
    codes = 32.times.map { |i| Thread.new { server.get(i.even? ? "/slowdb" : "/queries?queries=20").code } }.map(&:value)
    sampling = false
    sampler.join
    assert_equal ["200"], codes.uniq
    assert_operator peak, :<=, POOL
    assert_operator peak, :>=, 2
  end

  # A connection ended under the server (SPEC §8.4) answers 503 at most
  # once per pooled connection, then the pool opens new ones.
  def test_ended_connections_are_replaced
    4.times { assert_equal "200", server.get("/db").code }
    @pg.exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = current_user AND pid <> pg_backend_pid()")
    # Each dead connection fails one request, in whichever worker holds it:
    # asked until eight answers in a row are 200, at most 40 times.
    codes = []
    until codes.last(8) == ["200"] * 8 || codes.size == 40
      r = server.get("/db")
      assert_equal ["text/plain; charset=utf-8", 1], [r["Content-Type"], r.body.lines.size], r.body if r.code == "503"
      codes << r.code
    end
    # The pool hands out connections unchecked: a dead one fails its request once.
    assert_includes codes, "503"
    assert_equal ["200"] * 8, codes.last(8), codes.inspect
    assert_operator codes.count("503"), :<=, POOL
  end

  def test_unreachable_database_is_503_and_other_routes_serve
    closed_port = TCPServer.open("127.0.0.1", 0) { |s| s.addr[1] }
    gone = PumaProcess.new(workers: 1, env: { "CONCUR_DB_URL" => "postgres://concur:x@127.0.0.1:#{closed_port}/concur" })
    started = now
    r = gone.get("/db")
    assert_operator now - started, :<, 5
    assert_equal ["503", "text/plain; charset=utf-8"], [r.code, r["Content-Type"]]
    assert_match(/\Adatabase unavailable: [^\n]*refused[^\n]*\z/, r.body)
    assert_equal "200", gone.get("/").code
  ensure
    gone&.stop
  end

  # A database that takes each login 0.1 s to turn away: 12 requests at once
  # on a pool of 2 are each a 503 within 5 s, none left waiting for a
  # connection that another request failed to open (SPEC §8.4). Six rounds of
  # 0.1 s: a margin of 8x for a suite that runs beside another (0.3 s took
  # ruby-rails past 5 s once in CI, 1.8 s when alone).
  def test_a_burst_while_the_database_turns_logins_away_is_503_at_once
    slow_refusal = TCPServer.new("127.0.0.1", 0)
    refusing = Thread.new do
      loop do
        client = slow_refusal.accept
        Thread.new(client) do |c|
          sleep 0.1
          c.close
        end
      end
    rescue IOError
      nil # closed at the end of the test
    end
    gone = PumaProcess.new(workers: 1, env: { "CONCUR_DB_URL" => "postgres://concur:x@127.0.0.1:#{slow_refusal.addr[1]}/concur",
                                              "CONCUR_DB_POOL" => "2" })
    answers = Array.new(12) do
      Thread.new do
        started = now
        [gone.get("/db").code, now - started]
      end
    end.map(&:value)
    assert_equal ["503"] * 12, answers.map(&:first)
    assert_operator answers.map(&:last).max, :<, 5, answers.inspect
  ensure
    gone&.stop
    slow_refusal&.close
    refusing&.join
  end

  def test_no_database_url_is_503
    %w[/db /queries /updates /fortunes /slowdb].each do |path|
      r = SERVER.get(path)
      assert_equal ["503", "database unavailable: CONCUR_DB_URL is not set"], [r.code, r.body], path
    end
  end

  def test_wrong_method_and_longer_path
    r = server.post("/db", "")
    assert_equal ["405", "GET, HEAD"], [r.code, r["Allow"]]
    assert_equal "404", server.get("/db/1").code
  end

  private

  def rows(response)
    assert_equal ["200", "application/json"], [response.code, response["Content-Type"]], response.body
    JSON.parse(response.body)
  end

  def stored(id)
    Integer(@pg.exec_params("SELECT randomnumber FROM world WHERE id = $1", [id]).getvalue(0, 0))
  end

  # The server's connections: the user's opened since the server started
  # (not one of another server that a backend outlived), but for this test's own.
  def server_connections
    sql = "SELECT count(*) FROM pg_stat_activity WHERE usename = current_user AND pid <> pg_backend_pid() AND backend_start >= $1"
    Integer(@pg.exec_params(sql, [@since]).getvalue(0, 0))
  end

  def now
    Process.clock_gettime(Process::CLOCK_MONOTONIC)
  end
end
