# The blog series' file server (SPEC §2): the page is read from disk on every
# request, and every Nth request of this process waits first. The wait sleeps
# this request's Puma thread only; the others go on.
class PagesController < ApplicationController
  # Per process: each Puma worker counts from 1 (the master forks them before
  # any request, so each starts from the master's 0).
  @count = Concurrent::AtomicFixnum.new

  class << self
    def next_count = @count.increment
  end

  def show
    config = Rails.configuration.x
    sleep config.page_delay if (self.class.next_count % config.page_delay_every).zero?
    render body: File.binread(config.page_file), content_type: "text/html; charset=utf-8"
  end
end
