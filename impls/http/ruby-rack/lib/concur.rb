# frozen_string_literal: true

# The Concur HTTP workload (spec/SPEC.md) as a plain Rack application.
#
# config.ru builds the middleware stack around Concur::App; config/puma.rb
# runs it on Puma and, with more than one worker, shares Concur.store from
# the master process over DRb and gives each worker its share of the
# database pool (Concur.database).
require_relative "concur/config"
require_relative "concur/store"
require_relative "concur/hasher"
require_relative "concur/http_error"
require_relative "concur/server_headers"
require_relative "concur/permits"
require_relative "concur/database"
require_relative "concur/world_routes"
require_relative "concur/app"

module Concur
  SERVER_NAME = "concur-ruby-rack"

  # The one store of this server: a Hash in single mode; in cluster mode the
  # master's Hash, which the workers reach over DRb (see Store#share).
  def self.store
    @store ||= Store.new
  end

  # The environment of this server, read once.
  def self.config
    @config ||= Config.from_env
  end

  # The database of this process: in single mode a pool of all of
  # CONCUR_DB_POOL; in cluster mode made in the master, then resized by each
  # worker to its share as it boots (Database#resize, config/puma.rb).
  def self.database
    @database ||= Database.new(config.db_url, config.db_pool_share(0))
  end
end
