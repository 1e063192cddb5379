# frozen_string_literal: true

require "bcrypt"

module Concur
  # bcrypt at the configured cost, one hash at a time per process
  # (spec/POLICIES.md §2: CONCUR_CORES hashes per server, one process per core).
  #
  # bcrypt-ruby releases the GVL while it hashes (rb_thread_call_without_gvl),
  # so Puma's threads could otherwise run a hash on every core of the machine
  # from one process. The lock keeps the parallelism where CONCUR_CORES puts
  # it: one worker process, one hash at a time, so N workers hash on N cores.
  class Hasher
    def initialize(cost)
      @cost = cost
      @lock = Mutex.new
    end

    def create(password)
      @lock.synchronize { BCrypt::Password.create(password, cost: @cost).to_s }
    end

    def match?(hash, password)
      @lock.synchronize { BCrypt::Password.new(hash) == password }
    end
  end
end
