# The exceptions app (config.exceptions_app): what ActionDispatch::ShowExceptions
# answers when an exception escapes a controller or the router (no route, an
# unknown HTTP method such as FOO, a malformed query string, a bug). Like Rails'
# own ActionDispatch::PublicExceptions, but one line of text/plain (SPEC §3)
# instead of public/<status>.html. A plain Rack app, not a controller: it must
# not raise again on the request that broke the first one.
#
# Rails answers a path that no route has for this method with 404; SPEC §3.3
# wants 405 and an Allow header when the path has a route for another method,
# so a routing error asks the routes which methods they know for the path.
class PlainExceptions
  METHODS = %w[GET POST PUT PATCH DELETE].freeze

  def initialize(routes)
    @routes = routes
  end

  def call(env)
    request = ActionDispatch::Request.new(env)
    status = request.path_info.delete_prefix("/").to_i
    exception = request.get_header("action_dispatch.exception")
    allowed = exception.is_a?(ActionController::RoutingError) ? allowed_methods(request.original_fullpath) : []
    return method_not_allowed(request, allowed) if allowed.any?

    reason = Rack::Utils::HTTP_STATUS_CODES.fetch(status, "Error")
    detail = exception&.message.to_s.scrub.lines.first.to_s.strip
    reason = "#{reason}: #{detail}" if status < 500 && !detail.empty?
    plain(status, reason)
  end

  private

  # The methods that have a route for this raw path (query and all), asked the
  # way the router itself matches: the normalized path, with the raw one kept
  # for the routes' constraints.
  def allowed_methods(fullpath)
    path = ActionDispatch::Journey::Router::Utils.normalize_path(fullpath.split("?", 2).first)
    METHODS.select do |method|
      env = Rack::MockRequest.env_for(path, method: method, "ORIGINAL_FULLPATH" => fullpath)
      @routes.recognize_path_with_request(ActionDispatch::Request.new(env), path, {}, raise_on_missing: false)
    rescue ActionController::RoutingError, URI::InvalidURIError
      false
    end
  end

  def method_not_allowed(request, allowed)
    method = request.get_header("action_dispatch.original_request_method")
    plain(405, "method #{method} not allowed: use #{allowed.join(', ')}", "Allow" => allowed.join(", "))
  end

  def plain(status, reason, headers = {})
    [status, { "Content-Type" => "text/plain; charset=utf-8", "Content-Length" => reason.bytesize.to_s }.merge(headers), [reason]]
  end
end
