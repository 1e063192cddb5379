require_relative "boot"

require "rails"
# Only the frameworks this API uses: Action Controller (with Action View, for
# the fortunes page) and Active Record (the database routes, SPEC §8); no
# mailer, jobs, storage or cables.
require "action_controller/railtie"
require "active_record/railtie"

Bundler.require(*Rails.groups)

require_relative "../lib/concur_env"
require_relative "../lib/plain_exceptions"
require_relative "../lib/raw_request_bodies"
require_relative "../lib/standard_headers"

module ConcurRails
  class Application < Rails::Application
    config.load_defaults 6.1

    # Only loads a smaller set of middleware suitable for API only apps.
    config.api_only = true

    # Rails' error pages never reach a client: an exception that escapes a
    # controller or the router is answered in one line of text/plain, like
    # every refusal (SPEC §3), and a path routed for another method is a 405.
    config.exceptions_app = PlainExceptions.new(routes)

    # Controllers parse the JSON bodies themselves; Rails parses none into params.
    config.middleware.use RawRequestBodies

    # Puma sets neither Date nor Server, and SPEC §4 wants both on every response.
    config.middleware.insert_before 0, StandardHeaders

    # The workload's settings (SPEC §1), read once at boot.
    config.x.bcrypt_cost = ConcurEnv.integer("CONCUR_BCRYPT_COST", 10, 4..31)
    config.x.page_file = ENV.fetch("CONCUR_PAGE_FILE") { File.expand_path("../../../../spec/static/hello.html", __dir__) }
    config.x.page_delay_every = ConcurEnv.integer("CONCUR_PAGE_DELAY_EVERY", 10, 1..)
    config.x.page_delay = ConcurEnv.integer("CONCUR_PAGE_DELAY_MS", 2000, 0..) / 1000.0
    config.x.longpoll_wait = ConcurEnv.integer("CONCUR_LONGPOLL_MS", 5000, 0..) / 1000.0

    # The database routes (SPEC §8.2), read by config/database.yml.
    # CONCUR_DB_POOL bounds the connections of all of Puma's WEB_CONCURRENCY
    # workers together; db_pool_share(index) is worker index's part of it
    # (ConcurEnv.pool_share), all of it in single mode (index 0 of 1).
    config.x.db_url = ENV["CONCUR_DB_URL"].presence
    config.x.db_pool = ConcurEnv.integer("CONCUR_DB_POOL", 16, 1..)
    config.x.db_workers = ConcurEnv.integer("WEB_CONCURRENCY", 1, 1..)
    config.x.db_pool_share = ->(index) { ConcurEnv.pool_share(config.x.db_pool, config.x.db_workers, index) }
    config.x.db_slow = ConcurEnv.integer("CONCUR_DB_SLOW_MS", 20, 0..) / 1000.0
    config.x.faults = ENV["CONCUR_FAULTS"] == "1"
  end
end
