require "test_helper"
require "minitest/mock"

# The database routes of SPEC §8 through Rails' integration test client,
# against the real PostgreSQL of test/database_helper.rb.
class DatabaseTest < ActionDispatch::IntegrationTest
  setup { @pg = TestDatabase.connect }
  teardown { @pg.close }

  def rows
    assert_response 200
    assert_equal "application/json", response.media_type
    JSON.parse(response.body)
  end

  def stored(id)
    Integer(@pg.exec_params("SELECT randomnumber FROM world WHERE id = $1", [id]).getvalue(0, 0))
  end

  test "/db answers a row as stored, drawn at random" do
    ids = Array.new(5) do
      get "/db"
      row = rows
      assert_equal %w[id randomNumber], row.keys
      assert_equal stored(row["id"]), row["randomNumber"]
      row["id"]
    end
    assert_operator ids.uniq.size, :>, 1
  end

  test "/queries clamps N and reads each row as stored" do
    { "" => 1, "?queries=" => 1, "?queries=foo" => 1, "?queries=0" => 1, "?queries=-3" => 1, "?queries=1" => 1,
      "?queries=20" => 20, "?queries=500" => 500, "?queries=501" => 500 }.each do |query, want|
      get "/queries#{query}"
      assert_equal want, rows.size, query
    end
    get "/queries?queries=3"
    rows.each { |row| assert_equal stored(row["id"]), row["randomNumber"] }
  end

  # With the query cache Rails turns on per request, a row drawn twice would
  # be read once; SPEC §8.3 wants a statement per row.
  test "/queries runs a statement per row, with no query cache" do
    before = world_reads
    get "/queries?queries=500"
    assert_response 200
    assert_operator world_reads - before, :>=, 500
  end

  test "/updates writes the new numbers back" do
    get "/updates?queries=20"
    answered = rows
    assert_equal 20, answered.size
    answered.group_by { |row| row["id"] }.each do |id, drawn|
      assert_includes drawn.map { |row| row["randomNumber"] }, stored(id), "row #{id}"
    end
  end

  # spec/POLICIES.md §6: the reads, then one UPDATE for all the rows, with
  # no transaction around it (`update!` per row was a BEGIN, an UPDATE and a
  # COMMIT each).
  test "/updates writes its rows with one UPDATE, outside a transaction" do
    before = [world_reads, calls("^UPDATE world "), calls("^(BEGIN|COMMIT|ROLLBACK|START TRANSACTION)")]
    get "/updates?queries=20"
    assert_equal 20, rows.size
    after = [world_reads, calls("^UPDATE world "), calls("^(BEGIN|COMMIT|ROLLBACK|START TRANSACTION)")]
    reads, updates, transactions = after.zip(before).map { |a, b| a - b }
    assert_operator reads, :>=, 20
    assert_equal [1, 0], [updates, transactions]
  end

  test "/fortunes is the page, sorted and escaped" do
    get "/fortunes"
    assert_response 200
    assert_equal "text/html; charset=utf-8", response.headers["Content-Type"]
    assert_equal File.read(File.expand_path("../fortunes.html", __dir__)), response.body
  end

  test "/slowdb waits in the database" do
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    get "/slowdb"
    row = rows
    assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, :>=, Rails.configuration.x.db_slow
    assert_equal stored(row["id"]), row["randomNumber"]
  end

  # spec/POLICIES.md §6.3: the rows are read, the connection goes back to
  # the pool, then the JSON or the page is made.
  test "a database route gives its connection back before it renders" do
    ActiveRecord::Base.clear_active_connections! # none held by this test's thread
    held = []
    pool = ActiveRecord::Base.connection_pool
    encode = ActiveSupport::JSON.method(:encode)
    ActiveSupport::JSON.stub(:encode, ->(*args) { held << pool.active_connection?.present?; encode.call(*args) }) do
      %w[/db /queries?queries=3 /updates?queries=3 /slowdb].each do |path|
        get path
        assert_response 200
      end
    end
    assert_equal [false] * 4, held
    held.clear
    rendering = ActiveSupport::Notifications.subscribe("render_template.action_view") { held << pool.active_connection?.present? }
    get "/fortunes"
    assert_response 200
    assert_equal [false], held
  ensure
    ActiveSupport::Notifications.unsubscribe(rendering) if rendering
  end

  test "another method is 405 and a longer path 404" do
    post "/db"
    assert_response 405
    assert_equal "GET", response.headers["Allow"]
    %w[/db/1 /queries/20 /slowdb/ /fortunes/x].each do |path|
      get path
      assert_response 404
    end
  end

  private

  # Reads of world by the server's user so far (pg_stat_statements, which concur db loads).
  def world_reads
    sql = "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE userid = (SELECT oid FROM pg_roles WHERE rolname = current_user) " \
          "AND query ~* '\\mworld\\M' AND query !~* '\\mupdate\\M'"
    Integer(@pg.exec(sql).getvalue(0, 0))
  end

  # Statements of the server's user so far whose text matches pattern (case
  # ignored): pg_stat_statements counts BEGIN and COMMIT too.
  def calls(pattern)
    sql = "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE userid = (SELECT oid FROM pg_roles WHERE rolname = current_user) " \
          "AND query ~* $1"
    Integer(@pg.exec_params(sql, [pattern]).getvalue(0, 0))
  end
end
