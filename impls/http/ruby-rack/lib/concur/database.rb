# frozen_string_literal: true

require "sequel"

module Concur
  # The database routes' connections (SPEC §8.2): Sequel's connection and
  # pool over the `pg` gem, with the SQL written by hand and no model, as
  # TechEmpower's Rack entry does (its pg_db.rb). A bare Rack app has no ORM;
  # Sequel is the pool Rack apps reach for (ruby-sinatra uses its dataset
  # DSL on top).
  #
  # The pool holds this process's share of CONCUR_DB_POOL (Config#db_pool_share):
  # all of it in single mode; in cluster mode each Puma worker resizes the
  # pool the master made to its own share when it boots (config/puma.rb). A
  # request holds one connection for all its statements (`with`); when every
  # one is busy, its Puma thread waits for a Permits' permit, woken one at a
  # time as connections come back, for up to POOL_TIMEOUT seconds.
  class Database
    # Longer than any client of the scenarios waits (concur load gives up
    # after 10 s): with 16,384 Puma threads and a few connections, the queue
    # is in front of the pool, and a request must not fail for being in it while its
    # client still waits. Sequel's default is 5 s.
    POOL_TIMEOUT = 30

    # Why a database route answers 503 (SPEC §8.4).
    class Unavailable < StandardError; end

    # url: CONCUR_DB_URL (nil: the routes answer 503); size: this process's
    # share of CONCUR_DB_POOL. No connection is opened here (test: false):
    # the Puma master builds this before it forks, and a worker's
    # connections open on first use.
    def initialize(url, size)
      @url = url
      @lock = Mutex.new
      resize(size)
    end

    # Makes the pool anew with `size` connections and permits: a Puma worker
    # calls it on boot (config/puma.rb) with its share, before it serves, so
    # it drops only the master's pool, which never opened a connection.
    def resize(size)
      @db&.disconnect
      @db = @url && Sequel.connect(@url, max_connections: size, pool_timeout: POOL_TIMEOUT, connect_timeout: 5,
                                         test: false, keep_reference: false)
      @permits = Permits.new(size, POOL_TIMEOUT)
      @statements = nil
    end

    # Yields the Statements with one pooled connection held for the block;
    # every failure to reach or use the database comes out as Unavailable
    # (Sequel drops a connection that broke, so the next request opens a new one).
    def with
      raise Unavailable, "CONCUR_DB_URL is not set" unless @db

      @permits.hold { @db.synchronize { yield statements } }
    rescue Sequel::Error => e
      raise Unavailable, e.message.split.join(" ")
    end

    private

    # Made on first use, in the worker (see Statements).
    def statements
      @statements || @lock.synchronize { @statements ||= Statements.new(@db) }
    end
  end

  # The routes' statements, prepared by Sequel on each connection the first
  # time they run there (PostgreSQL PREPARE through pg).
  class Statements
    def initialize(db)
      @row = db["SELECT id, randomnumber FROM world WHERE id = ?", :$id].prepare(:first, :world_row)
      @fortunes = db["SELECT id, message FROM fortune"].prepare(:select, :fortunes)
      # The request's rows in one statement, ids in ascending order, so two
      # requests lock shared rows in the same order and cannot deadlock.
      @update = db["UPDATE world SET randomnumber = u.r FROM unnest(?::int[], ?::int[]) AS u(id, r) WHERE world.id = u.id",
                   :$ids, :$numbers].prepare(:update, :world_update)
      # The wait is the query's own, so the connection is held through it.
      @slow = db["SELECT id, randomnumber FROM world, pg_sleep(?) WHERE id = ?", :$seconds, :$id].prepare(:first, :world_slow)
    end

    # {id:, randomnumber:} of row id.
    def row(id)
      @row.call(id: id)
    end

    def fortunes
      @fortunes.call
    end

    # Writes numbers[i] to row ids[i], ids in ascending order.
    def update(ids, numbers)
      @update.call(ids: "{#{ids.join(',')}}", numbers: "{#{numbers.join(',')}}")
    end

    def slow(id, seconds)
      @slow.call(id: id, seconds: seconds)
    end
  end
end
