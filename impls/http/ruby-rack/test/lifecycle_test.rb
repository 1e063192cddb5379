# frozen_string_literal: true

require_relative "test_helper"

# A cluster of its own, to kill a worker and to stop it.
class LifecycleTest < Minitest::Test
  def test_dead_worker_is_replaced_and_the_store_survives_then_sigterm_stops_everything
    puma = PumaProcess.new(workers: 2)
    assert_equal "OK", puma.post("/user/set/ruby_life", '{"alive":1}').body
    before = wait_for { puma.workers if puma.workers.size == 2 }

    Process.kill("KILL", before.first)
    after = wait_for { puma.workers if puma.workers.size == 2 && !puma.workers.include?(before.first) }
    refute_includes after, before.first
    4.times { assert_equal '{"alive":1}', puma.get("/user/get/ruby_life").body }

    puma.stop
    assert wait_for { !puma.group_alive? }, "processes left in the group after SIGTERM"
  ensure
    Process.kill("KILL", -puma.pid) if puma&.group_alive?
  end

  def test_single_mode_at_one_core
    puma = PumaProcess.new(workers: 1)
    assert_empty puma.workers
    assert_equal "OK", puma.post("/user/set/ruby_single", "{}").body
    assert_equal "{}", puma.get("/user/get/ruby_single").body
    puma.stop
    refute puma.group_alive?
  end

  # Regression: a pool of 256 threads per process answered 512 of 2,000
  # long-poll clients at 2 cores and left the rest waiting the whole run
  # (spec/POLICIES.md §1). The default pool grows past it on demand: 300
  # polls of 4 s end together, where 256 threads would answer the last 44
  # only after a second wait.
  def test_long_polls_past_256_threads_are_all_answered_at_once
    puma = PumaProcess.new(workers: 1, threads: nil, env: { "CONCUR_LONGPOLL_MS" => "4000" })
    start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    codes = 300.times.map { Thread.new { puma.get("/longPoll").code } }.map(&:value)
    elapsed = Process.clock_gettime(Process::CLOCK_MONOTONIC) - start
    assert_equal ["200"] * 300, codes
    assert_operator elapsed, :<, 7.5, "300 polls of 4 s took #{elapsed.round(2)} s: some queued for a thread"
  ensure
    puma&.stop
  end

  # Regression: the workers' store calls were unbounded, and every DRb call
  # beyond DRb's 16 pooled connections opened a connection served by a new
  # master thread; under the thesis' userinfo load at 2 cores the store then
  # answered a few dozen requests in 6 s (bench/RESULTS.md). 600 clients
  # writing and reading at once must all be answered, and the master must
  # serve them on at most 16 connections per worker.
  def test_store_calls_from_many_threads_share_the_pooled_connections
    puma = PumaProcess.new(workers: 2, threads: nil)
    wait_for { puma.workers.size == 2 }
    puma.post("/user/set/ruby_warm", "{}")
    before = threads_of(puma.pid)
    most = before
    watching = true
    watcher = Thread.new do
      while watching
        most = [most, threads_of(puma.pid)].max
        sleep 0.01
      end
    end
    gate = Queue.new
    clients = 600.times.map do |i|
      Thread.new do
        gate.pop
        set = puma.post("/user/set/ruby_many#{i}", %({"i":#{i}})).body
        [set, puma.get("/user/get/ruby_many#{i}").body]
      end
    end
    600.times { gate << :go }
    answers = clients.map(&:value)
    watching = false
    watcher.join
    assert_equal 600.times.map { |i| ["OK", %({"i":#{i}})] }, answers
    assert_operator most - before, :<=, 2 * 16, "the master went from #{before} to #{most} threads"
  ensure
    puma&.stop
  end

  private

  def threads_of(pid)
    Dir["/proc/#{pid}/task/*"].size
  end

  def wait_for(seconds = 30)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
    loop do
      result = yield
      return result if result
      return nil if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline

      sleep 0.1
    end
  end
end
