# frozen_string_literal: true

# The Concur HTTP workload (spec/SPEC.md) as a plain Rack application.
#
# config.ru builds the middleware stack around Concur::App; config/puma.rb
# runs it on Puma and, with more than one worker, shares Concur.store from
# the master process over DRb.
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
end
