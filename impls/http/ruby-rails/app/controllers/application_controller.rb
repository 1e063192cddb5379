class ApplicationController < ActionController::API
  # SPEC §3.5: bodies over 1 MiB are refused.
  MAX_BODY = 1.megabyte
  # SPEC §3.4, tested on the raw path: "%41" and "a/b" are not user names.
  USER_NAME = /\A[A-Za-z0-9_.-]{1,64}\z/

  # A refusal of SPEC §3: its status and a one-line reason, as text/plain.
  class Refusal < StandardError
    attr_reader :status

    def initialize(status, reason)
      super(reason)
      @status = status
    end
  end

  rescue_from Refusal do |refusal|
    render plain: refusal.message, status: refusal.status
  end

  private

  def refuse(status, reason)
    raise Refusal.new(status, reason)
  end

  def store
    Rails.configuration.x.store
  end

  # {user}: the rest of the raw, undecoded path after the route's prefix
  # ("/user/get/"). The router decodes its own copy ("%41" => "A"), so the
  # controllers read and check the raw one.
  def user_name
    @user_name ||= UserPath.raw_path(request).split("/", 4).fetch(3, "")
  end

  def require_user_name
    return if user_name.match?(USER_NAME)

    refuse :bad_request, "invalid user name: must match [A-Za-z0-9_.-]{1,64}"
  end

  # The request body parsed by the json library into Ruby's JSON value (Hash,
  # Array, String, Integer, Float, true, false, nil).
  def json_body
    refuse :payload_too_large, "request body over #{MAX_BODY} bytes" if request.content_length.to_i > MAX_BODY
    # Puma has already read the body (a chunked one into a file); read at most
    # one byte past the limit.
    body = request.body.read(MAX_BODY + 1) || +""
    refuse :payload_too_large, "request body over #{MAX_BODY} bytes" if body.bytesize > MAX_BODY
    # The json library would let invalid UTF-8 through inside strings; JSON text
    # is UTF-8 (RFC 8259 §8.1), so such a body is not JSON.
    refuse :bad_request, "body is not JSON: invalid UTF-8" unless body.force_encoding(Encoding::UTF_8).valid_encoding?
    JSON.parse(body)
  rescue JSON::ParserError, JSON::NestingError
    refuse :bad_request, "body is not JSON"
  end
end
