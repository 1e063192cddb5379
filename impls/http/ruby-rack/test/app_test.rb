# frozen_string_literal: true

require "minitest/autorun"
require "rack"
require "rack/mock"
require_relative "../lib/concur"

# The app on its own, through Rack::MockRequest: what needs a clock or a
# counter is easier to pin here than through Puma's load balancing.
class AppTest < Minitest::Test
  def setup
    config = Concur::Config.new(bcrypt_cost: 4, page_file: Concur::DEFAULT_PAGE,
                                page_delay_every: 3, page_delay: 0.3, longpoll: 0.2, db_pool: 16, workers: 1)
    @app = Rack::MockRequest.new(Concur::App.new(config, Concur::Store.new))
  end

  def test_every_third_page_is_delayed
    times = 6.times.map { elapsed { assert_equal 200, @app.get("/page").status } }
    slow = times.each_index.select { |i| times[i] >= 0.3 }
    assert_equal [2, 5], slow
  end

  def test_long_poll_waits
    assert_operator elapsed { assert_equal "OK", @app.get("/longPoll").body }, :>=, 0.2
  end

  def test_value_is_stored_not_bytes
    @app.post("/user/set/v", input: '{"b": 1.0, "a": "\u0041"}')
    assert_equal({ "b" => 1.0, "a" => "A" }, JSON.parse(@app.get("/user/get/v").body))
  end

  # SPEC §9: unknown paths without CONCUR_FAULTS=1; with it the spin takes
  # its time (a bad ms counts as 0) and the panic escapes the app (Puma
  # answers it 500).
  def test_fault_routes
    assert_equal 404, @app.get("/fault/panic").status
    assert_equal 404, @app.get("/fault/spin?ms=1").status
    config = Concur::Config.from_env("CONCUR_FAULTS" => "1")
    assert config.faults
    app = Rack::MockRequest.new(Concur::App.new(config, Concur::Store.new))
    assert_operator elapsed { assert_equal "OK", app.get("/fault/spin?ms=100").body }, :>=, 0.1
    %w[/fault/spin /fault/spin?ms= /fault/spin?ms=x /fault/spin?ms=-5].each { |t| assert_equal "OK", app.get(t).body }
    assert_raises(RuntimeError) { app.get("/fault/panic") }
    assert_equal 404, app.get("/fault/panic/x").status
  end

  def test_config_refuses_bad_values
    error = assert_raises(ArgumentError) { Concur::Config.from_env("CONCUR_BCRYPT_COST" => "3") }
    assert_match(/CONCUR_BCRYPT_COST/, error.message)
    assert_equal 31, Concur::Config.from_env("CONCUR_BCRYPT_COST" => "31").bcrypt_cost
  end

  # spec/POLICIES.md §6.3: worker i of P gets floor(POOL / P), plus one if
  # i < POOL % P, so that the workers hold all of CONCUR_DB_POOL together.
  def test_the_database_pool_is_divided_among_the_workers
    shares = ->(pool, workers) { Array.new(workers) { |i| Concur::Config.pool_share(pool, workers, i) } }
    assert_equal [6, 5, 5], shares.(16, 3)
    assert_equal [1, 1, 1, 1], shares.(4, 4)
    assert_equal [8, 8], shares.(16, 2)
    assert_equal [3, 2], shares.(5, 2)
    assert_equal [16], shares.(16, 1)
    (1..8).each { |p| (1..p).each { |n| assert_equal p, shares.(p, n).sum, "#{p} over #{n}" } }
    config = Concur::Config.from_env("CONCUR_DB_POOL" => "16", "WEB_CONCURRENCY" => "3")
    assert_equal [6, 5, 5], (0..2).map { |i| config.db_pool_share(i) }
    assert_equal 16, Concur::Config.from_env("CONCUR_DB_POOL" => "16").db_pool_share(0) # single mode: all of it
  end

  private

  def elapsed
    start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    yield
    Process.clock_gettime(Process::CLOCK_MONOTONIC) - start
  end
end
