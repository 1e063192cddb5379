# frozen_string_literal: true

require "minitest/autorun"
require "net/http"
require "json"
require "socket"
require "timeout"

ROOT = File.expand_path("..", __dir__)

# A real server: `bundle exec puma --config config/puma.rb` on a port the OS
# picks (PORT=0), read back from Puma's "Listening on" line.
class PumaProcess
  ENV_FOR_TESTS = {
    "PORT" => "0",
    "CONCUR_BCRYPT_COST" => "4",
    "CONCUR_PAGE_DELAY_EVERY" => "3",
    "CONCUR_PAGE_DELAY_MS" => "300",
    "CONCUR_LONGPOLL_MS" => "300",
    "CONCUR_DB_URL" => nil, # no database unless a test gives one (`concur test` exports one)
  }.freeze

  attr_reader :pid, :port

  # threads: CONCUR_THREADS, the server's pool; nil leaves config/puma.rb's
  # default (the policy's 16,384).
  def initialize(workers:, threads: 32 * workers, env: {})
    env = ENV_FOR_TESTS.merge("WEB_CONCURRENCY" => workers.to_s).merge(env)
    env["CONCUR_THREADS"] = threads.to_s if threads
    reader, writer = IO.pipe
    @pid = spawn(env, "bundle", "exec", "puma", "--config", "config/puma.rb",
                 chdir: ROOT, out: writer, err: writer, pgroup: true)
    writer.close
    @port = Timeout.timeout(60) { listening_port(reader) }
    @drain = Thread.new { reader.each_line { nil } } # Puma's log, read so it never blocks on a full pipe
  end

  def http
    Net::HTTP.start("127.0.0.1", port) { |h| yield h }
  end

  def get(path)
    http { |h| h.get(path) }
  end

  def post(path, body)
    http { |h| h.post(path, body) }
  end

  def raw(bytes, read_timeout: 5)
    socket = TCPSocket.new("127.0.0.1", port)
    socket.write(bytes)
    yield socket
  ensure
    socket&.close
  end

  # The worker processes: children of the Puma master.
  def workers
    Dir["/proc/[0-9]*/stat"].filter_map do |stat|
      fields = File.read(stat).split(") ").last.split
      Integer(File.basename(File.dirname(stat))) if Integer(fields[1]) == pid
    rescue Errno::ENOENT, Errno::ESRCH
      nil
    end
  end

  def group_alive?
    Process.kill(0, -pid)
    true
  rescue Errno::ESRCH
    false
  end

  def stop
    Process.kill("TERM", pid)
    Process.wait(pid)
  rescue Errno::ESRCH, Errno::ECHILD
    nil
  end

  private

  def listening_port(reader)
    reader.each_line do |line|
      port = line[%r{Listening on http://127\.0\.0\.1:(\d+)}, 1]
      return Integer(port) if port
    end
    raise "puma exited before it listened"
  end
end

# One cluster of two workers for the route tests, as CONCUR_CORES=2 runs it.
SERVER = PumaProcess.new(workers: 2)
Minitest.after_run { SERVER.stop }
