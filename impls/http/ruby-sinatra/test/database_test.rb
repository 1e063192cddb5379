# frozen_string_literal: true

require "test_helper"
require "real_server"
require "database_helper"

# The database routes of SPEC §8 against a real PostgreSQL, served by a real
# Puma cluster of two workers sharing CONCUR_DB_POOL=4.
class DatabaseTest < Minitest::Test
  include RealServer

  POOL = 4
  SLOW_MS = 50

  def setup
    @pg = TestDatabase.connect
    @since = @pg.exec("SELECT now()").getvalue(0, 0) # the database's clock when the server starts
    start_server(2, env: { "CONCUR_DB_URL" => TestDatabase.url, "CONCUR_DB_POOL" => POOL.to_s, "CONCUR_DB_SLOW_MS" => SLOW_MS.to_s })
  end

  def teardown
    stop_server
    @pg.close
  end

  def test_db_queries_updates_and_slowdb_answer_rows_as_stored
    ids = Array.new(5) { one_row(get("/db")) }.map { |row| row["id"] }
    assert_operator ids.uniq.size, :>, 1
    { "" => 1, "?queries=" => 1, "?queries=foo" => 1, "?queries=0" => 1, "?queries=-3" => 1, "?queries=1" => 1,
      "?queries=20" => 20, "?queries=500" => 500, "?queries=501" => 500 }.each do |query, want|
      assert_equal want, rows(get("/queries#{query}")).size, query
    end
    rows(get("/queries?queries=3")).each { |row| assert_equal stored(row["id"]), row["randomNumber"] }
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    one_row(get("/slowdb"))
    assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, :>=, SLOW_MS / 1000.0
  end

  def test_updates_write_the_new_numbers_back
    answered = rows(get("/updates?queries=20"))
    assert_equal 20, answered.size
    answered.group_by { |row| row["id"] }.each do |id, drawn|
      assert_includes drawn.map { |row| row["randomNumber"] }, stored(id), "row #{id}"
    end
  end

  def test_fortunes_page_is_sorted_and_escaped
    r = get("/fortunes")
    assert_equal ["200", "text/html;charset=utf-8"], [r.code, r["Content-Type"]]
    assert_equal File.read(File.join(__dir__, "fortunes.html")), r.body.force_encoding(Encoding::UTF_8)
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
    codes = Array.new(32) { |i| Thread.new { get(i.even? ? "/slowdb" : "/queries?queries=20").code } }.map(&:value)
    sampling = false
    sampler.join
    assert_equal ["200"], codes.uniq
    assert_operator peak, :<=, POOL
    assert_operator peak, :>=, 2
  end

  # A connection ended under the server (SPEC §8.4) answers 503 at most once
  # per pooled connection, then Sequel opens new ones.
  def test_ended_connections_are_replaced
    4.times { assert_equal "200", get("/db").code }
    @pg.exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = current_user AND pid <> pg_backend_pid()")
    # Each dead connection fails one request, in whichever worker holds it:
    # asked until eight answers in a row are 200, at most 40 times.
    codes = []
    until codes.last(8) == ["200"] * 8 || codes.size == 40
      r = get("/db")
      assert_equal ["text/plain;charset=utf-8", 1], [r["Content-Type"], r.body.lines.size], r.body if r.code == "503"
      codes << r.code
    end
    # The pool hands out connections unchecked: a dead one fails its request once.
    assert_includes codes, "503"
    assert_equal ["200"] * 8, codes.last(8), codes.inspect
    assert_operator codes.count("503"), :<=, POOL
  end

  def test_wrong_method_and_longer_path
    r = post("/db", "")
    assert_equal ["405", "GET, HEAD"], [r.code, r["Allow"]]
    assert_equal "404", get("/db/1").code
  end

  private

  def rows(response)
    assert_equal ["200", "application/json"], [response.code, response["Content-Type"]], response.body
    JSON.parse(response.body)
  end

  def one_row(response)
    row = rows(response)
    assert_equal %w[id randomNumber], row.keys
    assert_equal stored(row["id"]), row["randomNumber"]
    row
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
end

# Without a database: a prompt 503 with the reason, and the other routes serve.
class NoDatabaseTest < Minitest::Test
  include RealServer

  def teardown
    stop_server
  end

  def test_no_database_url_is_503
    start_server(1)
    %w[/db /queries /updates /fortunes /slowdb].each do |path|
      r = get(path)
      assert_equal ["503", "database unavailable: CONCUR_DB_URL is not set"], [r.code, r.body], path
    end
    assert_equal "200", get("/").code
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
        Thread.new(slow_refusal.accept) do |c|
          sleep 0.1
          c.close
        end
      end
    rescue IOError
      nil # closed at the end of the test
    end
    start_server(1, env: { "CONCUR_DB_URL" => "postgres://concur:x@127.0.0.1:#{slow_refusal.addr[1]}/concur", "CONCUR_DB_POOL" => "2" })
    answers = Array.new(12) do
      Thread.new do
        started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        [get("/db").code, Process.clock_gettime(Process::CLOCK_MONOTONIC) - started]
      end
    end.map(&:value)
    assert_equal ["503"] * 12, answers.map(&:first)
    assert_operator answers.map(&:last).max, :<, 5, answers.inspect
  ensure
    slow_refusal&.close
    refusing&.join
  end

  def test_refused_connection_is_503
    closed_port = TCPServer.open("127.0.0.1", 0) { |s| s.addr[1] }
    start_server(1, env: { "CONCUR_DB_URL" => "postgres://concur:x@127.0.0.1:#{closed_port}/concur" })
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    r = get("/db")
    assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, :<, 5
    assert_equal ["503", "text/plain;charset=utf-8"], [r.code, r["Content-Type"]]
    assert_match(/\Adatabase unavailable: [^\n]*refused[^\n]*\z/, r.body)
    assert_equal "200", get("/").code
  end
end
