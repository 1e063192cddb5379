# The two in-memory maps of SPEC §2, `passwords` (user => bcrypt hash) and
# `users` (user => the parsed JSON value). Puma serves a process's requests on
# many threads, so every access takes the lock. In cluster mode the Puma master
# holds the one Store and workers call it over DRb (lib/shared_store.rb); the
# methods take and return only plain values, which DRb marshals.
class Store
  MAPS = %i[passwords users].freeze

  def initialize
    @maps = MAPS.to_h { |name| [name, {}] }
    @lock = Mutex.new
  end

  def read(map, key)
    @lock.synchronize { @maps.fetch(map)[key] }
  end

  # Returns nil, so that DRb does not marshal the value back to the caller.
  def write(map, key, value)
    @lock.synchronize { @maps.fetch(map)[key] = value }
    nil
  end
end
