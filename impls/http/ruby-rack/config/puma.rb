# frozen_string_literal: true

# Puma for the Concur workload, the way the seed ran it
# (`puma -w 5 --preload -e production`), sized by the manifest:
#   WEB_CONCURRENCY   worker processes (concur.toml maps CONCUR_CORES onto it)
#   PUMA_MAX_THREADS  threads per process, one per request being served
# Both are Puma's own variable names.

# Puma 5.6 (Debian 12) loses requests pipelined behind a request with a body;
# this backports Puma 6.5's fix (see the file).
require_relative "../lib/concur/puma_pipelining"

workers_count = Integer(ENV.fetch("WEB_CONCURRENCY", "1"))
max_threads = Integer(ENV.fetch("PUMA_MAX_THREADS", "256"))

environment "production"
quiet

# SPEC §1 asks for a listen backlog of at least 4096; Puma's default is 1024.
bind "tcp://127.0.0.1:#{ENV.fetch('PORT')}?backlog=4096"

# A request holds its thread until it is answered, a long poll included, so
# the pool must hold the verifier's 200 long polls with room to spare. The
# minimum is the maximum, as Rails' and Heroku's Puma configs do: every thread
# is started at boot. (With a minimum of 0, Puma 5.6 starts at most one thread
# per queued request and counts threads that were woken but not yet running
# as idle, so a burst can leave requests queued behind sleeping ones while the
# pool is far below its maximum; see README.)
threads max_threads, max_threads

if workers_count > 1
  # Cluster mode: the master loads the app once (preload) and forks the
  # workers; it keeps the one store and serves it to them over DRb.
  workers workers_count
  preload_app!
  before_fork { Concur.store.share }
  on_worker_boot { Concur.store.connect }
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
