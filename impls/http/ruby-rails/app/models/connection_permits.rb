# frozen_string_literal: true

# Where a database route's request waits for a connection: one permit per
# connection of the worker's Active Record pool, held while the request holds
# its connection. Fair, as Active Record's own queue is: a permit given back
# goes to the thread that has waited longest, never to one that just arrived.
#
# Active Record's pool (6.1) wakes no waiting thread when it fails to open a
# connection (try_to_checkout_new_connection's ensure only counts the attempt
# down). With the database refusing logins, a request that arrives while
# every slot is taken by a thread still connecting would wait out the whole
# checkout_timeout for its 503 (SPEC §8.4 asks one within 5 s). Behind these
# permits no more threads than connections reach the pool, so it never waits,
# and each request that leaves, served or failed, lets the next in.
class ConnectionPermits
  @instance_lock = Mutex.new

  # The worker's permits, as many as its pool has connections, waited for as
  # long as its checkout_timeout.
  def self.instance
    @instance || @instance_lock.synchronize do
      pool = ActiveRecord::Base.connection_pool
      @instance ||= new(pool.size, pool.checkout_timeout)
    end
  end

  # A waiting thread's place in the line.
  Ticket = Struct.new(:granted, :wake)

  def initialize(count, timeout)
    @free = count
    @timeout = timeout
    @lock = Mutex.new
    @line = []
  end

  # Runs the block holding a permit; ActiveRecord::ConnectionTimeoutError
  # when none came to this thread within the timeout.
  def hold
    take
    begin
      yield
    ensure
      give_back
    end
  end

  private

  def take
    @lock.synchronize do
      if @free.positive? && @line.empty?
        @free -= 1
        return
      end
      wait_in_line
    end
  end

  def wait_in_line
    ticket = Ticket.new(false, ConditionVariable.new)
    @line.push(ticket)
    deadline = now + @timeout
    until ticket.granted
      left = deadline - now
      if left <= 0
        @line.delete(ticket)
        raise ActiveRecord::ConnectionTimeoutError, "no database connection came free within #{@timeout} s"
      end
      ticket.wake.wait(@lock, left)
    end
  end

  def give_back
    @lock.synchronize do
      if (next_in_line = @line.shift)
        next_in_line.granted = true
        next_in_line.wake.signal
      else
        @free += 1
      end
    end
  end

  def now
    Process.clock_gettime(Process::CLOCK_MONOTONIC)
  end
end
