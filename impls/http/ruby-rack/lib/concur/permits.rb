# frozen_string_literal: true

module Concur
  # Where a request waits for a database connection: one permit per
  # connection of the process's pool, held while the request holds its
  # connection, each one given back waking the next waiting thread.
  #
  # Sequel's threaded pool waits on its own ConditionVariable, but it wakes
  # no waiting thread when it fails to open a connection (sequel 5.63, as on
  # its master of July 2026: assign_connection's ensure frees the slot without
  # a signal). With the database refusing logins, a request that arrives while
  # every slot is taken by a thread still connecting would wait out the whole
  # POOL_TIMEOUT for its 503 (SPEC §8.4 asks one within 5 s). Behind these
  # permits no more threads than connections reach the pool, so it never
  # waits, and each request that leaves, served or failed, lets the next in.
  class Permits
    def initialize(count, timeout)
      @free = count
      @timeout = timeout
      @lock = Mutex.new
      @returned = ConditionVariable.new
    end

    # Runs the block holding a permit; Sequel::PoolTimeout when none came
    # free within the timeout.
    def hold
      take
      begin
        yield
      ensure
        @lock.synchronize do
          @free += 1
          @returned.signal
        end
      end
    end

    private

    def take
      deadline = now + @timeout
      @lock.synchronize do
        while @free.zero?
          left = deadline - now
          raise Sequel::PoolTimeout, "no database connection came free within #{@timeout} s" if left <= 0

          @returned.wait(@lock, left)
        end
        @free -= 1
      end
    end

    def now
      Process.clock_gettime(Process::CLOCK_MONOTONIC)
    end
  end
end
