# frozen_string_literal: true

require "erb"
require "json"
require "rack/utils"

module Concur
  # The database routes of SPEC §8.3, each a Rack response. Every request
  # holds one pooled connection for all its statements.
  class WorldRoutes
    ROWS = 10_000
    MAX_QUERIES = 500
    ADDED = "Additional fortune added at request time."
    JSON_TYPE = "application/json"
    HTML = "text/html; charset=utf-8"

    Fortune = Struct.new(:id, :message)

    # The page, from an ERB template compiled once into Page.render(fortunes);
    # ERB::Util#h escapes each message (& < > " ').
    module Page
      extend ERB::Util
      ERB.new(File.read(File.join(__dir__, "views/fortunes.html.erb")), trim_mode: "-").def_method(singleton_class, "render(fortunes)")
    end

    def initialize(database, slow_seconds)
      @db = database
      @slow = slow_seconds
    end

    def single
      json(@db.with { |db| world(db.row(random_id)) })
    end

    def queries(env)
      json(@db.with { |db| read_rows(db, count(env)) })
    end

    # Read one by one as /queries; written back in one statement, in id
    # order; answered in the order read.
    def updates(env)
      rows = @db.with do |db|
        read = read_rows(db, count(env)).each { |row| row["randomNumber"] = random_id }
        sorted = read.sort_by { |row| row["id"] }
        db.update(sorted.map { |row| row["id"] }, sorted.map { |row| row["randomNumber"] })
        read
      end
      json(rows)
    end

    def fortunes
      list = @db.with(&:fortunes).map { |row| Fortune.new(row[:id], row[:message]) }
      list << Fortune.new(0, ADDED)
      # String#<=> compares bytes: for UTF-8, code point order.
      [200, { "Content-Type" => HTML }, [Page.render(list.sort_by!(&:message))]]
    end

    def slow
      json(@db.with { |db| world(db.slow(random_id, @slow)) })
    end

    private

    def read_rows(db, n)
      Array.new(n) { world(db.row(random_id)) }
    end

    def world(row)
      { "id" => row[:id], "randomNumber" => row[:randomnumber] }
    end

    # N of SPEC §8.3: not an integer counts as 1, then clamped to 1..500.
    def count(env)
      n = Integer(Rack::Utils.parse_query(env["QUERY_STRING"])["queries"].to_s, 10, exception: false) || 1
      n.clamp(1, MAX_QUERIES)
    end

    def random_id
      rand(1..ROWS)
    end

    def json(value)
      [200, { "Content-Type" => JSON_TYPE }, [JSON.generate(value)]]
    end
  end
end
