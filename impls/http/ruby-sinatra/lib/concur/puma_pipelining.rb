# frozen_string_literal: true

require "puma/client"
require "stringio"

module Concur
  # A backport of Puma 6.5.0's fix "Properly handle two requests seen in the
  # initial buffer" (puma/puma#3332) to Debian 12's Puma 5.6.5.
  #
  # When one read brings a request with a Content-Length body and, after it,
  # the next pipelined request, Puma 5.6.5 hands the application all of those
  # bytes as the body and drops the next request: a pipelined
  # `POST /user/set/u` followed by `GET /user/get/u` gets a body that is not
  # JSON and no second answer (SPEC §4 requires both, in order). As upstream
  # does, the body is cut at Content-Length and the rest kept as the start of
  # the next request.
  module PumaPipelining
    private

    def setup_body
      ready = super
      length = @env[Puma::Const::CONTENT_LENGTH]
      if ready && length && @body.is_a?(StringIO) && @body.string.bytesize > length.to_i
        bytes = @body.string
        @body = StringIO.new(bytes.byteslice(0, length.to_i))
        @buffer = bytes.byteslice(length.to_i..)
      end
      ready
    end
  end
end

Puma::Client.prepend(Concur::PumaPipelining)
