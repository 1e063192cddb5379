# frozen_string_literal: true

require "pg"

# The PostgreSQL of SPEC §8.1 for the database routes' tests: the one
# CONCUR_DB_URL names (`concur test` sets it), else one that `concur db`
# (on PATH, or the repository's release build) starts now, stopped when
# the tests end. setpriv's --pdeathsig has the kernel interrupt it should
# this process die first, so no database outlives the suite.
module TestDatabase
  RELEASE_BUILD = File.expand_path("../../../../target/release/concur", __dir__)

  def self.url
    @url ||= ENV["CONCUR_DB_URL"].to_s.empty? ? start : ENV["CONCUR_DB_URL"]
  end

  # A connection of the test's own, as the server's user.
  def self.connect
    PG.connect(url)
  end

  def self.start
    bin = ENV["PATH"].split(":").map { |dir| File.join(dir, "concur") }.find { |f| File.executable?(f) } || RELEASE_BUILD
    unless File.executable?(bin)
      raise "the database routes need PostgreSQL: no concur on PATH nor at #{bin} (cargo build --release), " \
            "or export the CONCUR_DB_URL that `concur db` prints"
    end
    reader, writer = IO.pipe
    pid = spawn("setpriv", "--pdeathsig", "INT", bin, "db", out: writer)
    writer.close
    line = reader.gets.to_s
    raise "concur db printed #{line.inspect}, not CONCUR_DB_URL=..." unless line.start_with?("CONCUR_DB_URL=")

    @keep = reader # concur db may write more; its pipe stays open
    Minitest.after_run do
      Process.kill("INT", pid)
      Process.wait(pid)
    end
    line.strip.delete_prefix("CONCUR_DB_URL=")
  end
end
