# frozen_string_literal: true

module Concur
  # The process environment of SPEC §1, read once. A bad value stops the
  # server before it listens, with a sentence naming the variable, so a typo
  # never runs a benchmark with a silently different workload.
  #
  # workers is Puma's WEB_CONCURRENCY (CONCUR_CORES when unset); db_pool is
  # each worker's share of CONCUR_DB_POOL, at least one (SPEC §8.2: the
  # bound holds for all processes together).
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
        db_pool: [integer(env, "CONCUR_DB_POOL", 1..2**31, 16) / workers, 1].max,
        db_slow: integer(env, "CONCUR_DB_SLOW_MS", 0..2**31, 20) / 1000.0,
        faults: env["CONCUR_FAULTS"] == "1"
      )
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
