# The variables of SPEC §1 that are numbers. A bad value stops the boot with a
# sentence naming the variable, instead of a stack trace from Integer().
module ConcurEnv
  def self.integer(name, default, range)
    value = ENV.fetch(name, default.to_s)
    number = Integer(value, 10, exception: false)
    return number if number && range.cover?(number)

    abort "#{name}=#{value.inspect}: expected an integer in #{range.inspect.delete_suffix('..')}#{'..' if range.end.nil?}"
  end

  # The connections of process `index` (0...processes) of a server whose
  # processes share `pool` (spec/POLICIES.md §6.3): floor(pool / processes),
  # plus one for each of the first pool % processes, so that together they
  # hold all of pool and never more (16 over 3: 6, 5, 5). At least one: a
  # pool smaller than the processes (which concur never gives) would leave
  # a process none.
  def self.pool_share(pool, processes, index)
    [pool / processes + (index < pool % processes ? 1 : 0), 1].max
  end
end
