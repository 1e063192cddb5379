# SPEC §2's long poll. Puma serves each request on a thread of its pool, and
# this one sleeps for the wait: the thread-per-request model that SPEC §2 allows
# when the pool holds the verifier's 200 polls (config/puma.rb, RAILS_MAX_THREADS).
class LongPollsController < ApplicationController
  def show
    sleep Rails.configuration.x.longpoll_wait
    render plain: "OK"
  end
end
