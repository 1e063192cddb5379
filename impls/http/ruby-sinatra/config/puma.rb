# frozen_string_literal: true

# Puma for the Concur workload: the seed's `puma -w 5 --preload` with
# WEB_CONCURRENCY={cores} workers (the manifest sets it; CONCUR_CORES when it
# is unset). One core is Puma's single mode, as Puma itself advises ("cluster
# mode with a single worker is often a misconfiguration").

require "time"
require_relative "../lib/concur/config"
require_relative "../lib/concur/puma_pipelining"
require_relative "../lib/concur/store"

begin
  concur = Concur::Config.from_env
rescue Concur::Config::Error => e
  abort "concur-sinatra: #{e.message}"
end

# SPEC §1: 127.0.0.1 only, and a listen backlog of 4096 (Puma's default is 1024).
bind "tcp://127.0.0.1:#{concur.port}?backlog=4096"

worker_count = concur.workers
if worker_count > 1
  # Cluster mode: the application is loaded once in the master, then forked.
  workers worker_count
  preload_app!

  # One process owns the stores for all workers (SPEC §5); in single mode the
  # application's own Store serves.
  before_fork do
    Concur::SharedStore.start
  end

  # Each worker's database pool is its share of CONCUR_DB_POOL by its index
  # (0...workers, kept by a worker Puma starts in place of a dead one):
  # floor(POOL / workers), plus one for the first POOL % workers. It
  # replaces the master's, which never opened a connection.
  on_worker_boot do |index|
    Concur::App.set :store, Concur::SharedStore.connect
    Concur::App.set :database, Concur::Database.connect(concur, index)
  end
else
  workers 0 # Puma itself would read WEB_CONCURRENCY=1 as a one-worker cluster
end

# spec/POLICIES.md §1: a request holds its OS thread until it is answered, a
# long poll included, so a waiting client costs one thread and nothing may
# refuse it for want of one. CONCUR_THREADS (16,384 per server, the manifest)
# is shared by the processes; each grows its pool on demand from Puma's
# default minimum of 0 to its share, and Puma's auto-trim stops an idle
# thread every 30 s until the pool is back at the minimum. Thread stacks are
# set small by the manifest (RUBY_THREAD_*_STACK_SIZE).
threads_per_server = Integer(ENV.fetch("CONCUR_THREADS", "16384"))
threads 0, (threads_per_server.to_f / [worker_count, 1].max).ceil

# What Puma answers when an exception escapes the application (Sinatra's own
# handlers catch those of the routes): Puma's default has no Content-Type,
# Date or Server (SPEC §4).
lowlevel_error_handler do |_error|
  [500, { "Content-Type" => "text/plain", "Date" => Time.now.httpdate, "Server" => "Puma" },
   ["internal server error"]]
end
