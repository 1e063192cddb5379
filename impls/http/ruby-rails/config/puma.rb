# Puma, as the wrk repository ran Rails (`puma -w 5 --preload -e production`):
# cluster mode with the application preloaded in the master, one worker
# process per core. Sizes come from the environment, as in Rails' own template.

require_relative "../lib/puma_pipelined_bodies"

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
    # Active Record opens connections only when a request needs one, so the
    # master has none; were one open, a forked worker must not share it.
    ActiveRecord::Base.connection_handler.clear_all_connections!
    require "shared_store"
    store_uri ||= SharedStore.serve(Rails.configuration.x.store)
    puts "* Store: #{store_uri}"
  end
  on_worker_boot do |index|
    Rails.configuration.x.store = SharedStore.connect(store_uri)
    # The worker's Active Record pool: its share of CONCUR_DB_POOL by its
    # index (0...workers, kept by a worker Puma starts in place of a dead
    # one), floor(POOL / workers) plus one for the first POOL % workers, so
    # the workers hold all of the pool together. config/database.yml's
    # settings with this pool size, as Rails apps set per-worker connections.
    ActiveSupport.on_load(:active_record) do
      config = ActiveRecord::Base.connection_db_config.configuration_hash
      ActiveRecord::Base.establish_connection(config.merge(pool: Rails.configuration.x.db_pool_share.call(index)))
    end
  end
else
  # Puma 5.6 itself reads WEB_CONCURRENCY=1 as a cluster of one worker (a
  # master forking one process, with its warning): single mode is asked here.
  workers 0
end

# spec/POLICIES.md §1: a request holds its thread until it is answered, a
# long poll included, so a waiting client costs one thread and nothing may
# refuse it for want of one. CONCUR_THREADS (16,384 per server, the manifest)
# is shared by the processes; each grows its pool on demand from Puma's
# default minimum of 0 to its share, and Puma's auto-trim stops an idle
# thread every 30 s until the pool is back at the minimum. Thread stacks are
# set small by the manifest (RUBY_THREAD_*_STACK_SIZE). (Rails' template reads
# RAILS_MAX_THREADS per process and sizes Active Record's pool to it, so that
# no thread waits for a connection; here the pool is CONCUR_DB_POOL's share,
# config/database.yml, and a thread that finds every connection taken waits
# in the pool's queue.)
threads_per_server = Integer(ENV.fetch("CONCUR_THREADS", "16384"))
threads 0, (threads_per_server.to_f / [worker_count, 1].max).ceil

# What Puma answers when the application itself raises past Rails (it should
# not): one line of text/plain, not Puma's page.
lowlevel_error_handler do |_error|
  [500, { "Content-Type" => "text/plain" }, ["internal server error"]]
end
