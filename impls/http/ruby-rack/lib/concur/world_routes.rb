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
      @slow = slow_seconds.to_s
    end

    def single
      row = @db.with { |conn| conn.exec("world", [random_id]).first }
      json(world(row))
    end

    def queries(env)
      json(@db.with { |conn| read_rows(conn, count(env)) })
    end

    # Read one by one as /queries; written back in one statement, in id
    # order; answered in the order read.
    def updates(env)
      rows = @db.with do |conn|
        read = read_rows(conn, count(env)).each { |row| row["randomNumber"] = random_id }
        sorted = read.sort_by { |row| row["id"] }
        conn.exec("update", [array(sorted.map { |r| r["id"] }), array(sorted.map { |r| r["randomNumber"] })])
        read
      end
      json(rows)
    end

    def fortunes
      stored = @db.with { |conn| conn.exec("fortunes", []) }
      list = stored.map { |id, message| Fortune.new(Integer(id), message.force_encoding(Encoding::UTF_8)) }
      list << Fortune.new(0, ADDED)
      # String#<=> compares bytes: for UTF-8, code point order.
      [200, { "Content-Type" => HTML }, [Page.render(list.sort_by!(&:message))]]
    end

    def slow
      row = @db.with { |conn| conn.exec("slow", [random_id, @slow]).first }
      json(world(row))
    end

    private

    def read_rows(conn, n)
      Array.new(n) { world(conn.exec("world", [random_id]).first) }
    end

    def world(row)
      { "id" => Integer(row[0]), "randomNumber" => Integer(row[1]) }
    end

    # N of SPEC §8.3: not an integer counts as 1, then clamped to 1..500.
    def count(env)
      n = Integer(Rack::Utils.parse_query(env["QUERY_STRING"])["queries"].to_s, 10, exception: false) || 1
      n.clamp(1, MAX_QUERIES)
    end

    def random_id
      rand(1..ROWS)
    end

    # A PostgreSQL array literal for an int[] parameter.
    def array(numbers)
      "{#{numbers.join(',')}}"
    end

    def json(value)
      [200, { "Content-Type" => JSON_TYPE }, [JSON.generate(value)]]
    end
  end
end
