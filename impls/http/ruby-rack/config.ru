# frozen_string_literal: true

# The Rack application: the routes of spec/SPEC.md under three middlewares.
require_relative "lib/concur"

use Rack::Head                                  # HEAD answers a GET route without its body
use Rack::ContentLength                         # every response is an Array of Strings: its length is known
use Concur::ServerHeaders, Concur::SERVER_NAME  # Date and Server
run Concur::App.new(Concur.config, Concur.store, Concur.database)
