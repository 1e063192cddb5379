# frozen_string_literal: true

# Puma for the Concur workload, the way the seed ran it
# (`puma -w 5 --preload -e production`), sized by the manifest:
#   WEB_CONCURRENCY   worker processes (Puma's own variable; concur.toml maps
#                     CONCUR_CORES onto it)
#   CONCUR_THREADS    threads per server, one per request being served, split
#                     evenly between the processes

# Puma 5.6 (Debian 12) loses requests pipelined behind a request with a body;
# this backports Puma 6.5's fix (see the file).
require_relative "../lib/concur/puma_pipelining"

workers_count = Integer(ENV.fetch("WEB_CONCURRENCY", "1"))

environment "production"
quiet

# SPEC §1 asks for a listen backlog of at least 4096; Puma's default is 1024.
bind "tcp://127.0.0.1:#{ENV.fetch('PORT')}?backlog=4096"

# spec/POLICIES.md §1: a request holds its thread until it is answered, a
# long poll included, so a waiting client costs one thread and nothing may
# refuse it for want of one. CONCUR_THREADS (16,384 per server, the manifest)
# is shared by the processes; each grows its pool on demand from Puma's
# default minimum of 0 to its share, and Puma's auto-trim stops an idle
# thread every 30 s until the pool is back at the minimum. Thread stacks are
# set small by the manifest (RUBY_THREAD_*_STACK_SIZE).
threads_per_server = Integer(ENV.fetch("CONCUR_THREADS", "16384"))
threads 0, (threads_per_server.to_f / [workers_count, 1].max).ceil

if workers_count > 1
  # Cluster mode: the master loads the app once (preload) and forks the
  # workers; it keeps the one store and serves it to them over DRb. Each
  # worker sizes its database pool to its share of CONCUR_DB_POOL by its
  # index (0...workers, kept by the worker Puma starts in place of a dead
  # one): floor(POOL / workers), plus one for the first POOL % workers.
  workers workers_count
  preload_app!
  before_fork { Concur.store.share }
  on_worker_boot do |index|
    Concur.store.connect
    Concur.database.resize(Concur.config.db_pool_share(index))
  end
else
  # One core: single mode, one process, the store in its own memory. (Puma
  # warns that cluster mode with one worker only adds a master process.)
  workers 0
end

# An exception the app did not turn into an answer: one line of text/plain,
# never Puma's page with a backtrace.
lowlevel_error_handler do |error|
  body = "internal error: #{error.class}"
  [500, { "Content-Type" => "text/plain; charset=utf-8", "Content-Length" => body.bytesize.to_s,
          "Date" => Time.now.httpdate, "Server" => Concur::SERVER_NAME }, [body]]
end
