# frozen_string_literal: true

module Concur
  # A refusal of SPEC §3: its status and a one-line reason, answered as
  # text/plain by App#call.
  class HttpError < StandardError
    attr_reader :status, :headers

    def initialize(status, reason, headers = {})
      super(reason)
      @status = status
      @headers = headers
    end
  end
end
