# frozen_string_literal: true

module Concur
  # The process environment of SPEC §1, read once. A bad value stops the
  # server before it listens, with a sentence naming the variable, so a typo
  # never runs a benchmark with a silently different workload.
  #
  # workers is Puma's WEB_CONCURRENCY (CONCUR_CORES when unset); db_pool is
  # CONCUR_DB_POOL, the bound for all processes together (SPEC §8.2), of
  # which each process's pool is its share (db_pool_share).
  Config = Struct.new(:port, :cores, :workers, :bcrypt_cost, :page_file, :page_delay_every,
                      :page_delay, :long_poll, :db_url, :db_pool, :db_slow, :faults, keyword_init: true)

  class Config
    # spec/static/hello.html, seen from this folder, where the orchestrator
    # starts the server.
    DEFAULT_PAGE_FILE = File.expand_path("../../../../../spec/static/hello.html", __dir__)

    class Error < StandardError; end

    def self.from_env(env = ENV)
      raise Error, "PORT is not set: give the TCP port to listen on (e.g. PORT=8080)" if env["PORT"].to_s.empty?

      cores = integer(env, "CONCUR_CORES", 1..1024, 1)
      workers = integer(env, "WEB_CONCURRENCY", 1..1024, cores)
      new(
        port: integer(env, "PORT", 0..65_535),
        cores: cores,
        workers: workers,
        bcrypt_cost: integer(env, "CONCUR_BCRYPT_COST", 4..31, 10),
        page_file: env["CONCUR_PAGE_FILE"].to_s.empty? ? DEFAULT_PAGE_FILE : env["CONCUR_PAGE_FILE"],
        page_delay_every: integer(env, "CONCUR_PAGE_DELAY_EVERY", 1..2**53, 10),
        page_delay: integer(env, "CONCUR_PAGE_DELAY_MS", 0..2**31, 2000) / 1000.0,
        long_poll: integer(env, "CONCUR_LONGPOLL_MS", 0..2**31, 5000) / 1000.0,
        db_url: env["CONCUR_DB_URL"].to_s.empty? ? nil : env["CONCUR_DB_URL"],
        db_pool: integer(env, "CONCUR_DB_POOL", 1..2**31, 16),
        db_slow: integer(env, "CONCUR_DB_SLOW_MS", 0..2**31, 20) / 1000.0,
        faults: env["CONCUR_FAULTS"] == "1"
      )
    end

    # The connections of process `index` (0...processes) of a server whose
    # processes share `pool` (spec/POLICIES.md §6.3): floor(pool / processes),
    # plus one for each of the first pool % processes, so that together they
    # hold all of pool and never more (16 over 3: 6, 5, 5). At least one: a
    # pool smaller than the processes (which concur never gives) would leave
    # a process none, and Sequel's pool cannot be empty.
    def self.pool_share(pool, processes, index)
      [pool / processes + (index < pool % processes ? 1 : 0), 1].max
    end

    # Puma worker `index`'s share of CONCUR_DB_POOL (config/puma.rb's
    # on_worker_boot); in single mode the one process, index 0 of 1, has it all.
    def db_pool_share(index)
      Config.pool_share(db_pool, workers, index)
    end

    def self.integer(env, name, range, default = nil)
      raw = env[name].to_s.strip
      return default if raw.empty? && default

      value = Integer(raw, 10, exception: false)
      return value if value && range.cover?(value)

      raise Error, "#{name} must be an integer from #{range.min} to #{range.max}, got '#{env[name]}'"
    end
    private_class_method :integer
  end
end
