# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "net/http"
require "socket"
require "timeout"
require "tmpdir"

# Starts the real server as the manifest does (bundle exec puma -C
# config/puma.rb) on a port the OS picks, in its own process group.
module RealServer
  START = %w[bundle exec puma -C config/puma.rb -e production].freeze

  # threads: CONCUR_THREADS, the server's pool (nil: config/puma.rb's
  # default, the policy's 16,384); env: more variables.
  def start_server(workers, threads: 32 * workers, env: {})
    @log = File.join(Dir.mktmpdir("concur-sinatra-test-"), "puma.log")
    # No database unless the test gives one (`concur test` exports CONCUR_DB_URL).
    env = { "PORT" => "0", "CONCUR_BCRYPT_COST" => "4", "WEB_CONCURRENCY" => workers.to_s, "CONCUR_DB_URL" => nil }.merge(env)
    env["CONCUR_THREADS"] = threads.to_s if threads
    @pid = Process.spawn(env, *START, chdir: ROOT, pgroup: true, %i[out err] => [@log, "w"])
    port = nil
    wait_until("Puma listening") { port = File.read(@log)[%r{Listening on http://127\.0\.0\.1:(\d+)}, 1] }
    @port = Integer(port)
    wait_until("the workers booted") { booted_workers == workers } if workers > 1
  end

  # SIGTERM, as the orchestrator stops it (the store owner then removes its
  # socket directory), SIGKILL if anything is left after 10 s.
  def stop_server
    Process.kill("-TERM", @pid) if group_alive?
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 10
    sleep 0.05 while group_alive? && Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline && !reaped?
    Process.kill("-KILL", @pid) if group_alive?
    reaped? || Process.wait(@pid)
    FileUtils.rm_rf(File.dirname(@log))
  end

  def reaped?
    @reaped ||= !Process.wait(@pid, Process::WNOHANG).nil?
  rescue Errno::ECHILD
    @reaped = true
  end

  def booted_workers
    File.read(@log).scan(/Worker \d+ \(PID: \d+\) booted/).size
  end

  def wait_until(what, seconds = 30)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
    until yield
      flunk "timed out waiting for #{what}; log:\n#{File.read(@log)}" if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
      sleep 0.05
    end
  end

  def get(path)
    Net::HTTP.start("127.0.0.1", @port) { |http| http.get(path) }
  end

  def post(path, body)
    Net::HTTP.start("127.0.0.1", @port) { |http| http.post(path, body) }
  end

  # Writes bytes in one segment and reads until the server closes.
  def raw(bytes)
    Timeout.timeout(10) do
      TCPSocket.open("127.0.0.1", @port) do |socket|
        socket.write(bytes)
        socket.read
      end
    end
  end

  # [pid, command line] of the Puma master's children.
  def children
    Dir.glob("/proc/[0-9]*/stat").filter_map do |stat|
      ppid = Integer(File.read(stat).split(") ").last.split[1])
      pid = Integer(stat[%r{/proc/(\d+)/}, 1])
      [pid, File.read("/proc/#{pid}/cmdline").tr("\0", " ")] if ppid == @pid
    rescue Errno::ENOENT, Errno::ESRCH
      nil
    end
  end

  def alive?(pid)
    !File.read("/proc/#{pid}/stat").split(") ").last.start_with?("Z")
  rescue Errno::ENOENT, Errno::ESRCH
    false
  end

  def group_alive?
    Process.kill(0, -@pid)
    true
  rescue Errno::ESRCH
    false
  end
end
