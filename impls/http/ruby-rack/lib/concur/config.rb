# frozen_string_literal: true

module Concur
  DEFAULT_PAGE = File.expand_path("../../../../../spec/static/hello.html", __dir__)

  # The environment of SPEC §1 (PORT is Puma's: config/puma.rb binds it).
  # A bad value stops the boot with a message naming the variable.
  Config = Struct.new(:bcrypt_cost, :page_file, :page_delay_every, :page_delay, :longpoll, keyword_init: true) do
    def self.from_env(env = ENV)
      new(
        bcrypt_cost: integer(env, "CONCUR_BCRYPT_COST", 10, 4..31),
        page_file: env.fetch("CONCUR_PAGE_FILE", DEFAULT_PAGE),
        page_delay_every: integer(env, "CONCUR_PAGE_DELAY_EVERY", 10, 1..),
        page_delay: integer(env, "CONCUR_PAGE_DELAY_MS", 2000, 0..) / 1000.0,
        longpoll: integer(env, "CONCUR_LONGPOLL_MS", 5000, 0..) / 1000.0,
      )
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
