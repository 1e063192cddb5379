# frozen_string_literal: true

require "sequel"
require_relative "permits"

module Concur
  # The database of SPEC §8 through Sequel, the toolkit Sinatra's community
  # pairs with it (Jeremy Evans' Sequel and Roda; TechEmpower's
  # sinatra-sequel), on its postgres adapter over the `pg` gem.
  #
  # Sequel's threaded connection pool holds this process's share of
  # CONCUR_DB_POOL (Config#db_pool_share): all of it in single mode; each
  # Puma worker connects anew with its own share when it boots
  # (config/puma.rb). A request holds one connection for all its statements
  # (`hold`); when every one is busy its Puma thread waits in front of the
  # pool, on Permits' ConditionVariable, for up to POOL_TIMEOUT seconds. Connections
  # open on first use, so the server starts with the database down, and the
  # Puma master, which loads this before it forks, holds none.
  module Database
    # Longer than any client of the scenarios waits (concur load gives up
    # after 10 s): with 16,384 Puma threads and a few connections, the queue
    # is in the pool, and a request must not fail for being in it while its
    # client still waits. Sequel's default is 5 s.
    POOL_TIMEOUT = 30

    # The database of process `index` (its Puma worker index; 0 in single
    # mode) for config, or nil without CONCUR_DB_URL.
    def self.connect(config, index = 0)
      return nil unless config.db_url

      size = config.db_pool_share(index)
      db = Sequel.connect(config.db_url, max_connections: size, pool_timeout: POOL_TIMEOUT,
                                         connect_timeout: 5, test: false, keep_reference: false)
      Statements.new(db, Permits.new(size, POOL_TIMEOUT))
    end

    # The routes' statements, prepared by Sequel on each connection the
    # first time they run there (PostgreSQL PREPARE through pg).
    class Statements
      attr_reader :db

      def initialize(db, permits)
        @db = db
        @permits = permits
        @lock = Mutex.new
        @prepared = nil
      end

      # Runs the block on one pooled connection, held for all its statements.
      def hold(&block)
        @permits.hold { db.synchronize(&block) }
      end

      def row(id)
        prepared[:row].call(id: id)
      end

      # Writes numbers[i] to row ids[i] in one statement, ids in ascending
      # order (the caller sorts them). pg takes an int[] as its text form.
      def update(ids, numbers)
        prepared[:update].call(ids: "{#{ids.join(',')}}", numbers: "{#{numbers.join(',')}}")
      end

      def fortunes
        prepared[:fortunes].call
      end

      def slow(id, seconds)
        prepared[:slow].call(id: id, seconds: seconds)
      end

      private

      # Sequel writes a statement's SQL for the server's version, which it
      # asks the database for: so they are made on first use, in the worker,
      # and the Puma master never connects (nor fails to boot when the
      # database is down).
      def prepared
        @prepared || @lock.synchronize { @prepared ||= prepare }
      end

      def prepare
        world = db[:world].select(:id, :randomnumber)
        {
          row: world.where(id: :$id).prepare(:first, :world_row),
          # The request's rows in one statement (spec/POLICIES.md §6), in SQL
          # as ruby-rack writes it, so the statement is the policy's own text;
          # ids in ascending order, so two requests lock shared rows in the
          # same order and cannot deadlock. No transaction: it is atomic.
          update: db["UPDATE world SET randomnumber = u.r FROM unnest(?::int[], ?::int[]) AS u(id, r) WHERE world.id = u.id",
                     :$ids, :$numbers].prepare(:update, :world_update),
          fortunes: db[:fortune].select(:id, :message).prepare(:select, :fortunes),
          # The wait is the query's own, so the connection is held through it.
          slow: world.cross_join(Sequel.function(:pg_sleep, :$seconds)).where(id: :$id).prepare(:first, :world_slow),
        }
      end
    end
  end
end
