# The routes' catch-alls (config/routes.rb): a known path with another method,
# and every other path. One line of text/plain, as every refusal (SPEC §3).
class ErrorsController < ApplicationController
  def not_found
    refuse :not_found, "no route for #{request.path}"
  end

  # The allowed method comes from the route's defaults (config/routes.rb).
  def method_not_allowed
    allowed = request.path_parameters.fetch(:allow)
    response.set_header("Allow", allowed)
    refuse :method_not_allowed, "method #{request.request_method} not allowed: use #{allowed}"
  end
end
