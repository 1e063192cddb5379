# frozen_string_literal: true

require "puma"
require "puma/server" # loads Puma::Client with what it needs

module Concur
  # Backport of Puma 6.5's fix for pipelined requests with a body
  # (puma/puma#3332, "Properly handle two requests seen in the initial
  # buffer") to the Puma 5.6.5 that Debian 12 ships.
  #
  # Puma 5.6 reads a request's headers and whatever follows them in the same
  # segment; when those bytes are more than the Content-Length announces, it
  # hands all of them to the app as the body (and a Content-Length: 0 request
  # gets the next requests as its body), so the requests pipelined behind it
  # are lost. Here the surplus is cut off before Puma sets the body up and
  # kept as the connection's buffer, which Puma parses as the next request,
  # exactly as it already does after a request without a body.
  module PumaPipelining
    private

    def setup_body
      announced = @env[Puma::Const::CONTENT_LENGTH]
      body = @parser.body
      return super if @env[Puma::Const::TRANSFER_ENCODING2] || !announced&.match?(/\A\d+\z/)
      return super if body.bytesize <= announced.to_i

      rest = body.byteslice(announced.to_i..)
      body.replace(body.byteslice(0, announced.to_i)) # the parser's own String, which super reads
      super.tap { @buffer = rest }
    end
  end
end

Puma::Client.prepend(Concur::PumaPipelining)
