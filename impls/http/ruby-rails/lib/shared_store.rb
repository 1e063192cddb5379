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

  # The master's Store as this worker calls it (Remote).
  def self.connect(uri)
    # The fork copied the master's DRbServer object (not its thread). While it is
    # registered, DRb takes calls to its URI for local ones and would answer them
    # from this worker's copy of the store, so forget it; this closes nothing the
    # master uses.
    DRb.stop_service
    Remote.new(DRbObject.new_with_uri(uri))
  end

  # Store's read and write over DRb, at most CALLS calls in flight at once per
  # process; the others wait their turn in a queue of tokens (FIFO, each token
  # given back wakes one waiting thread). DRb keeps CALLS connections per
  # process (DRbConn::POOL_SIZE, 16) and opens a new one, served by a new
  # thread of the master, for every call beyond them; with a thread per
  # waiting request (spec/POLICIES.md §1) a worker may have thousands of
  # threads calling at once, and unbounded those calls churned connections and
  # master threads until the store answered a few dozen requests in 6 s
  # (bench/RESULTS.md).
  class Remote
    CALLS = DRb::DRbConn::POOL_SIZE

    def initialize(store)
      @store = store
      @calls = Thread::Queue.new
      CALLS.times { @calls << :call }
    end

    def read(map, key)
      call { @store.read(map, key) }
    end

    def write(map, key, value)
      call { @store.write(map, key, value) }
    end

    private

    def call
      token = @calls.pop
      begin
        yield
      ensure
        @calls << token
      end
    end
  end
end
