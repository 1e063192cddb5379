# The variables of SPEC §1 that are numbers. A bad value stops the boot with a
# sentence naming the variable, instead of a stack trace from Integer().
module ConcurEnv
  def self.integer(name, default, range)
    value = ENV.fetch(name, default.to_s)
    number = Integer(value, 10, exception: false)
    return number if number && range.cover?(number)

    abort "#{name}=#{value.inspect}: expected an integer in #{range.inspect.delete_suffix('..')}#{'..' if range.end.nil?}"
  end
end
