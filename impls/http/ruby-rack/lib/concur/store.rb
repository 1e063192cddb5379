# frozen_string_literal: true

require "drb/drb"
require "drb/unix"
require "fileutils"
require "tmpdir"

module Concur
  # The two maps of SPEC §2, passwords and users, behind one lock.
  class MemoryStore
    def initialize
      @maps = { passwords: {}, users: {} }
      @lock = Mutex.new
    end

    def get(map, key)
      @lock.synchronize { @maps.fetch(map)[key] }
    end

    def set(map, key, value)
      @lock.synchronize { @maps.fetch(map)[key] = value }
      nil
    end
  end

  # The store the app talks to: a MemoryStore in this process, or, in a Puma
  # worker, the master's MemoryStore over DRb (SPEC §5: one store for every
  # worker). Values cross DRb as Marshal carries them: a user's JSON value is
  # a Hash of Strings, Integers, Floats, Arrays... on both sides.
  class Store
    def initialize
      @backend = MemoryStore.new
    end

    # In the Puma master, before it forks the workers: serve the MemoryStore
    # on a Unix socket in a fresh private (0700) directory. DRb answers each
    # connection on a thread of the master.
    def share
      @dir = Dir.mktmpdir("concur-ruby-rack-")
      @server = DRb::DRbServer.new("drbunix:#{File.join(@dir, 'store.sock')}", @backend)
      owner = Process.pid
      at_exit { stop_sharing if Process.pid == owner }
    end

    # The most DRb calls a worker has in flight at once: DRb keeps this many
    # connections per process (DRbConn::POOL_SIZE, 16) and opens a new one,
    # served by a new thread of the master, for every call beyond them. With
    # a thread per waiting request (spec/POLICIES.md §1) a worker may have
    # thousands of threads calling at once: unbounded, the calls beyond the
    # pool churned connections and master threads until the store answered
    # a few dozen requests in 6 s (bench/RESULTS.md).
    CALLS = DRb::DRbConn::POOL_SIZE

    # In a worker, just after the fork: the copy of the master's DRb server
    # is not serving here, and while it is registered DRb would take the
    # master's URI for a local one and call this process's copy of the Hash.
    # The calls past CALLS wait their turn in a queue of tokens (FIFO, each
    # token given back wakes one waiting thread).
    def connect
      DRb.remove_server(@server)
      @backend = DRbObject.new_with_uri(@server.uri)
      @calls = Thread::Queue.new
      CALLS.times { @calls << :call }
    end

    def get(map, key)
      call { @backend.get(map, key) }
    end

    def set(map, key, value)
      call { @backend.set(map, key, value) }
    end

    private

    def call
      return yield unless @calls

      token = @calls.pop
      begin
        yield
      ensure
        @calls << token
      end
    end

    def stop_sharing
      @server.stop_service
      FileUtils.remove_entry(@dir, true)
    end
  end
end
