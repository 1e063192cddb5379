# frozen_string_literal: true

module Concur
  DEFAULT_PAGE = File.expand_path("../../../../../spec/static/hello.html", __dir__)

  # The environment of SPEC §1 (PORT is Puma's: config/puma.rb binds it).
  # A bad value stops the boot with a message naming the variable.
  #
  # db_pool is CONCUR_DB_POOL, the most connections of the whole server
  # (SPEC §8.2: the bound holds for all processes together), and workers
  # Puma's WEB_CONCURRENCY; each process's pool is its share (db_pool_share).
  Config = Struct.new(:bcrypt_cost, :page_file, :page_delay_every, :page_delay, :longpoll,
                      :db_url, :db_pool, :workers, :db_slow, :faults, keyword_init: true) do
    def self.from_env(env = ENV)
      new(
        bcrypt_cost: integer(env, "CONCUR_BCRYPT_COST", 10, 4..31),
        page_file: env.fetch("CONCUR_PAGE_FILE", DEFAULT_PAGE),
        page_delay_every: integer(env, "CONCUR_PAGE_DELAY_EVERY", 10, 1..),
        page_delay: integer(env, "CONCUR_PAGE_DELAY_MS", 2000, 0..) / 1000.0,
        longpoll: integer(env, "CONCUR_LONGPOLL_MS", 5000, 0..) / 1000.0,
        db_url: env["CONCUR_DB_URL"].to_s.empty? ? nil : env["CONCUR_DB_URL"],
        db_pool: integer(env, "CONCUR_DB_POOL", 16, 1..),
        workers: integer(env, "WEB_CONCURRENCY", 1, 1..),
        db_slow: integer(env, "CONCUR_DB_SLOW_MS", 20, 0..) / 1000.0,
        faults: env["CONCUR_FAULTS"] == "1",
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

    def self.integer(env, name, default, range)
      raw = env.fetch(name, "")
      return default if raw.empty?

      value = Integer(raw, 10, exception: false)
      return value if value && range.cover?(value)

      raise ArgumentError, "#{name}=#{raw.inspect}: expected an integer in #{range}"
    end
  end
end
