# frozen_string_literal: true

require "time"

module Concur
  # Date and Server on every response (SPEC §4). Puma writes neither, and
  # Rack has no middleware for them.
  class ServerHeaders
    def initialize(app, name)
      @app = app
      @name = name
    end

    def call(env)
      status, headers, body = @app.call(env)
      headers["Date"] ||= Time.now.httpdate
      headers["Server"] ||= @name
      [status, headers, body]
    end
  end
end
