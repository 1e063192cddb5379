# Puma, as the wrk repository ran Rails (`puma -w 5 --preload -e production`):
# cluster mode with the application preloaded in the master, one worker
# process per core. Sizes come from the environment, as in Rails' own template.

require_relative "../lib/puma_pipelined_bodies"

# Threads per process. A long poll holds its thread for the whole wait, so the
# pool must hold the verifier's 200 polls, all in one worker if they land so.
max_threads = Integer(ENV.fetch("RAILS_MAX_THREADS", 5))
min_threads = Integer(ENV.fetch("RAILS_MIN_THREADS", max_threads))
threads min_threads, max_threads

# 127.0.0.1 only; a backlog of 4096 (Puma's default is 1024), SPEC §1.
bind "tcp://127.0.0.1:#{ENV.fetch("PORT")}?backlog=4096"

# One worker per core. With one core Puma runs in single mode: a cluster of one
# worker is a master with nothing to share, and Puma warns against it.
worker_count = Integer(ENV.fetch("WEB_CONCURRENCY", 1))
if worker_count > 1
  workers worker_count
  preload_app!

  # SPEC §5: one store for all workers. The master, which loaded the app, serves
  # the app's Store over DRb; each worker (and any worker Puma starts in place of
  # a dead one) reaches it through a DRb client.
  store_uri = nil
  before_fork do
    require "shared_store"
    store_uri ||= SharedStore.serve(Rails.configuration.x.store)
    puts "* Store: #{store_uri}"
  end
  on_worker_boot do
    Rails.configuration.x.store = SharedStore.connect(store_uri)
  end
end

# What Puma answers when the application itself raises past Rails (it should
# not): one line of text/plain, not Puma's page.
lowlevel_error_handler do |_error|
  [500, { "Content-Type" => "text/plain" }, ["internal server error"]]
end
