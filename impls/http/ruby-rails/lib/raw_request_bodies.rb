# Rack middleware, last before the router: Rails parses no request body into
# params. Every body of this API is JSON, parsed once by the controllers with
# the json library (ApplicationController#json_body) whatever its Content-Type,
# which SPEC §3 says is not checked. Left alone, Rails would parse bodies
# whenever something reads `params`, and ActionController's log
# instrumentation reads them on every request:
# - a POST without a Content-Type, or with a form one, is parsed by Rack as
#   form fields, and a 1 MiB JSON body overflows Rack's key-space limit
#   (an exception, before any controller could answer 413);
# - a JSON one is parsed by ActiveSupport::JSON a second time, into a value
#   that is not the one to store (a non-object is wrapped in "_json", nil is
#   deep-munged out of arrays), and bytes that are not UTF-8 raise there.
# Query strings are still parsed as usual.
class RawRequestBodies
  def initialize(app)
    @app = app
  end

  def call(env)
    ActionDispatch::Request.new(env).request_parameters = {}
    @app.call(env)
  end
end
