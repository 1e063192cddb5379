# The exceptions app (config.exceptions_app): what ActionDispatch::ShowExceptions
# answers when an exception escapes a controller or the router (a malformed
# query string, an unknown HTTP method such as FOO, a bug). Like Rails' own
# ActionDispatch::PublicExceptions, but one line of text/plain (SPEC §3)
# instead of public/<status>.html. A plain Rack app, not a controller: it must
# not raise again on the request that broke the first one.
class PlainExceptions
  def call(env)
    request = ActionDispatch::Request.new(env)
    status = request.path_info.delete_prefix("/").to_i
    reason = Rack::Utils::HTTP_STATUS_CODES.fetch(status, "Error")
    exception = request.get_header("action_dispatch.exception")
    detail = exception&.message.to_s.scrub.lines.first.to_s.strip
    reason = "#{reason}: #{detail}" if status < 500 && !detail.empty?
    [status, { "Content-Type" => "text/plain; charset=utf-8", "Content-Length" => reason.bytesize.to_s }, [reason]]
  end
end
