require "drb/drb"
require "drb/unix"
require "fileutils"
require "tmpdir"

# One Store for every Puma worker (SPEC §5), over dRuby on a Unix socket.
#
# config/puma.rb calls `serve` in the master (before_fork: the app is preloaded,
# so the master already holds config.x.store) and `connect` in each worker
# (on_worker_boot). A worker that dies is replaced by Puma and connects again;
# the store lives as long as the master.
module SharedStore
  SOCKET = "store.sock".freeze

  # Serves `store` from this process on a socket in a private (0700) directory,
  # removed when this process exits. Returns the URI workers connect to.
  def self.serve(store)
    dir = Dir.mktmpdir("concur-rails-")
    owner = Process.pid
    # Workers are forks and inherit this hook; only the master removes the socket.
    at_exit { FileUtils.remove_entry(dir, true) if Process.pid == owner }
    DRb.start_service("drbunix:#{File.join(dir, SOCKET)}", store)
    DRb.uri
  end

  # A proxy whose calls go to the master's Store.
  def self.connect(uri)
    # The fork copied the master's DRbServer object (not its thread). While it is
    # registered, DRb takes calls to its URI for local ones and would answer them
    # from this worker's copy of the store, so forget it; this closes nothing the
    # master uses.
    DRb.stop_service
    DRbObject.new_with_uri(uri)
  end
end
