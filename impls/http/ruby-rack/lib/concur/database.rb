# frozen_string_literal: true

require "pg"
require "connection_pool"

module Concur
  # The database routes' connections (SPEC §8.2): the `pg` gem, PostgreSQL's
  # own C client, under the `connection_pool` gem, the pool Rack and Sidekiq
  # users put around a client that has none of its own.
  #
  # The pool holds this process's share of CONCUR_DB_POOL connections. A
  # request takes one (`with`) for all its statements; when every one is
  # busy, its Puma thread waits on the pool's ConditionVariable, in line
  # with the others, for up to WAIT seconds.
  class Database
    # Longer than any client of the scenarios waits (concur load gives up
    # after 10 s): with 16,384 Puma threads and a few connections, the queue
    # is in the pool, and a request must not fail for being in it while its
    # client still waits. connection_pool's default is 5 s.
    WAIT = 30

    # Why a database route answers 503 (SPEC §8.4).
    class Unavailable < StandardError; end

    # url: CONCUR_DB_URL (nil: the routes answer 503); size: this process's
    # share of CONCUR_DB_POOL. No connection is opened here: the Puma master
    # builds this before it forks, and a connection opens on first use.
    def initialize(url, size)
      @url = url
      @pool = url && ConnectionPool.new(size: size, timeout: WAIT) { Connection.new(url) }
    end

    # Yields a Connection held for the block; every failure to reach or use
    # the database comes out as Unavailable.
    def with(&block)
      raise Unavailable, "CONCUR_DB_URL is not set" unless @pool

      @pool.with(&block)
    rescue PG::Error, ConnectionPool::TimeoutError => e
      raise Unavailable, e.message.split.join(" ")
    end
  end

  # One PostgreSQL connection with the routes' prepared statements, opened
  # when first used and dropped when it breaks (its backend ended, the
  # database gone), so that the next request opens a new one: that is how
  # the routes come back without a restart.
  class Connection
    STATEMENTS = {
      "world" => "SELECT id, randomnumber FROM world WHERE id = $1",
      "fortunes" => "SELECT id, message FROM fortune",
      # The request's rows in one statement, ids in ascending order, so two
      # requests lock shared rows in the same order and cannot deadlock.
      "update" => "UPDATE world SET randomnumber = u.r FROM unnest($1::int[], $2::int[]) AS u(id, r) WHERE world.id = u.id",
      # The wait is the query's own, so the connection is held through it.
      "slow" => "SELECT id, randomnumber FROM world, pg_sleep($2) WHERE id = $1",
    }.freeze

    def initialize(url)
      @url = url
      @pg = nil
    end

    # Runs the prepared statement `name`; the values come back as Strings.
    def exec(name, params)
      pg.exec_prepared(name, params).values
    rescue PG::Error
      close # whatever broke, the next request gets a fresh connection
      raise
    end

    private

    def pg
      @pg ||= open
    end

    # pg 1.4 connects and queries without holding the GVL (its async API).
    def open
      conn = PG.connect(@url, connect_timeout: 5)
      STATEMENTS.each { |name, sql| conn.prepare(name, sql) }
      conn
    rescue PG::Error
      conn&.close
      raise
    end

    def close
      @pg&.close
    rescue PG::Error
      nil
    ensure
      @pg = nil
    end
  end
end
