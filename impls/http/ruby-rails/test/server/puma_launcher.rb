require "tempfile"

# Starts real Puma as the manifest does (`bundle exec puma -C config/puma.rb`)
# on a port the OS picks, in its own process group, for the tests of
# test/server/; its output goes to @log, which wait_for reads.
module PumaLauncher
  ROOT = File.expand_path("../..", __dir__)

  # env: the server's variables (nil unsets one). Returns once it listens
  # and, in cluster mode, both workers have booted.
  def launch_puma(env)
    @log = Tempfile.new("puma")
    @pid = Process.spawn(env, "bundle", "exec", "puma", "-C", "config/puma.rb",
                         chdir: ROOT, out: @log.path, err: @log.path, pgroup: true)
    @port = wait_for(/Listening on http:\/\/127\.0\.0\.1:(\d+)/)[1].to_i
    return if env["WEB_CONCURRENCY"] == "1"

    # The workers boot side by side and report in either order.
    wait_for(/Worker 0 \(PID: \d+\) booted/)
    wait_for(/Worker 1 \(PID: \d+\) booted/)
  end

  # SIGTERM first, as concur stops a server, so that the master's exit hooks
  # remove the store's socket directory (SIGKILL alone left one in /tmp per
  # test); SIGKILL to the group for whatever is left after 10 s.
  def kill_puma
    Process.kill("-TERM", @pid) rescue Errno::ESRCH
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 10
    sleep 0.05 until Process.wait(@pid, Process::WNOHANG) || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
  rescue Errno::ECHILD
    nil
  ensure
    Process.kill("-KILL", @pid) rescue Errno::ESRCH
    Process.wait(@pid) rescue Errno::ECHILD
    @log.close!
  end

  def wait_for(pattern, seconds = 60)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
    loop do
      match = File.read(@log.path).match(pattern)
      return match if match
      flunk "no #{pattern.inspect} in Puma's output:\n#{File.read(@log.path)}" if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
      sleep 0.1
    end
  end
end
