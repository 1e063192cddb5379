require "puma/client"

# A fix for Puma 5.6.5 (Debian 12's), loaded by config/puma.rb.
#
# When one read from the socket holds a request with a Content-Length body and
# the start of the next pipelined request, Puma::Client#setup_body hands all of
# those bytes to the first request as its body and drops its read buffer: the
# first request sees a body longer than its Content-Length, and the requests
# pipelined behind it are never answered. RFC 9112 §9.3.2 and SPEC §4 want
# them answered in order. This keeps exactly Content-Length bytes as the body
# and puts the rest back in the buffer, where Puma already looks for the next
# request (as it does when the first request has no body).
module PumaPipelinedBodies
  def setup_body
    ready = super
    length = @env[Puma::Const::CONTENT_LENGTH].to_i
    if ready && @body.is_a?(StringIO) && @body.size > length
      received = @body.string
      @body = StringIO.new(received.byteslice(0, length))
      @buffer = received.byteslice(length..)
    end
    ready
  end
end

Puma::Client.prepend(PumaPipelinedBodies)
