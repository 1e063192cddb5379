require "time"

# Rack middleware, first in the stack: every response, the exceptions app's
# included, carries the Date and Server headers SPEC §4 requires. Puma writes
# neither (it leaves both to the application).
class StandardHeaders
  SERVER = "Puma (Rails)".freeze

  def initialize(app)
    @app = app
  end

  def call(env)
    status, headers, body = @app.call(env)
    headers["Date"] ||= Time.now.httpdate
    headers["Server"] ||= SERVER
    [status, headers, body]
  end
end
