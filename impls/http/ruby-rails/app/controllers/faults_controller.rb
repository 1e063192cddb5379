# The fault routes of SPEC §9, routed only with CONCUR_FAULTS=1
# (config/routes.rb). The panic is any action's bug: ActionDispatch::
# ShowExceptions hands it to the exceptions app (lib/plain_exceptions.rb),
# which answers 500, and the request's Puma thread goes on.
class FaultsController < ApplicationController
  MAX_SPIN_MS = 10_000

  def panic
    raise "fault: /fault/panic"
  end

  # Computes on this request's Puma thread for ?ms= milliseconds (read as
  # queries is: 0 unless an integer, clamped to 0..10000); the GVL hands the
  # interpreter to another thread every 100 ms meanwhile.
  def spin
    ms = (Integer(params[:ms].to_s, 10, exception: false) || 0).clamp(0, MAX_SPIN_MS)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + ms / 1000.0
    nil while Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
    render plain: "OK"
  end
end
