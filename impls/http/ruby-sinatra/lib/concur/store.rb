# frozen_string_literal: true

require "drb/drb"
require "drb/unix"
require "rbconfig"
require "tmpdir"

module Concur
  # The two maps of SPEC §2 (`passwords` and `users`, user name to value).
  # Puma runs requests on many threads, and with DRb the owner process serves
  # each connected worker thread on a thread of its own, so every access holds
  # the lock.
  class Store
    MAPS = %i[passwords users].freeze

    def initialize
      @lock = Mutex.new
      @maps = MAPS.to_h { |name| [name, {}] }
    end

    def get(map, key)
      @lock.synchronize { @maps.fetch(map)[key] }
    end

    # Returns nil so that DRb does not carry the value back to the caller.
    def set(map, key, value)
      @lock.synchronize { @maps.fetch(map)[key] = value }
      nil
    end
  end

  # The owner's Store as a worker calls it: at most CALLS DRb calls in flight
  # at once per process, the others waiting their turn in a queue of tokens
  # (FIFO, each token given back wakes one waiting thread). DRb keeps CALLS
  # connections per process (DRbConn::POOL_SIZE, 16) and opens a new one,
  # served by a new thread of the owner, for every call beyond them; with a
  # thread per waiting request (spec/POLICIES.md §1) a worker may have
  # thousands of threads calling at once, and unbounded those calls churned
  # connections and owner threads until the store answered a few dozen
  # requests in 6 s (bench/RESULTS.md).
  class Remote
    CALLS = DRb::DRbConn::POOL_SIZE

    def initialize(store)
      @store = store
      @calls = Thread::Queue.new
      CALLS.times { @calls << :call }
    end

    def get(map, key)
      call { @store.get(map, key) }
    end

    def set(map, key, value)
      call { @store.set(map, key, value) }
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

  # One Store for all of Puma's workers (SPEC §5). The Puma master starts an
  # owner process (bin/store-owner) before it forks the workers, and each
  # worker reaches the owner's Store over DRb on a Unix socket in a private
  # temporary directory. Values cross as DRb carries them: Marshal.
  module SharedStore
    OWNER = File.expand_path("../../bin/store-owner", __dir__)
    READY_TIMEOUT = 10 # seconds

    class << self
      # The URI workers connect to, set in the master by start and inherited
      # by every worker Puma forks.
      attr_reader :uri

      # Spawns the owner and waits until its socket exists. The owner's stdin
      # is a pipe whose write end stays open in the master and in each worker
      # (they inherit it), so the owner exits once all of them are gone.
      def start
        dir = Dir.mktmpdir("concur-sinatra-store-")
        socket = File.join(dir, "store.sock")
        reader, @keepalive = IO.pipe
        pid = Process.spawn(RbConfig.ruby, OWNER, socket, in: reader)
        reader.close
        Process.detach(pid)
        wait_for(socket, pid)
        @uri = "drbunix:#{socket}"
      end

      # Store's methods in this worker; each call is one DRb round trip.
      def connect
        Remote.new(DRbObject.new_with_uri(uri))
      end

      private

      def wait_for(socket, pid)
        deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + READY_TIMEOUT
        until File.socket?(socket)
          raise "the store owner (pid #{pid}) did not open #{socket} within #{READY_TIMEOUT} s" if
            Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline

          sleep 0.01
        end
      end
    end
  end
end
