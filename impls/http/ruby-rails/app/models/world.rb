# A row of `world` (SPEC §8.1). PostgreSQL folds the column's name to
# `randomnumber`; the routes answer it as `randomNumber`.
class World < ApplicationRecord
  self.table_name = "world"

  ROWS = 10_000

  # /updates' write (spec/POLICIES.md §6): every row of the request in one
  # statement, its two arrays bound as int[]. Written in SQL, because Active
  # Record has no UPDATE … FROM; `upsert_all` would be an INSERT … ON CONFLICT,
  # which the server's user may not run (SPEC §8.1).
  UPDATE_NUMBERS = "UPDATE world SET randomnumber = u.r " \
                   "FROM unnest($1::int[], $2::int[]) AS u(id, r) WHERE world.id = u.id".freeze

  # A number of 1..ROWS: an id, or a new randomNumber.
  def self.random_id
    rand(1..ROWS)
  end

  # /slowdb's read: the query itself waits `seconds` in pg_sleep, holding
  # its connection (SPEC §8.3). The id is a bind of a prepared statement.
  def self.find_slowly(id, seconds)
    from("world, pg_sleep(#{Float(seconds)})").find(id)
  end

  # Writes each world's randomnumber with the one UPDATE_NUMBERS, on the
  # connection of this thread (the one its reads used). Every row is
  # written, even one whose number equals the stored one (where `update!`,
  # writing changed attributes only, would send nothing). Ids in ascending
  # order, so that two requests lock shared rows in the same order and
  # cannot deadlock; no transaction, since one statement is atomic.
  # `prepare: true` has Active Record PREPARE it on each connection, as it
  # does its own finds (prepared_statements: true); `exec_update` would
  # send it unprepared every time.
  def self.update_numbers(worlds)
    sorted = worlds.sort_by(&:id)
    connection.exec_query(UPDATE_NUMBERS, "World Update", [
      ActiveRecord::Relation::QueryAttribute.new("ids", sorted.map(&:id), integer_array),
      ActiveRecord::Relation::QueryAttribute.new("numbers", sorted.map(&:randomnumber), integer_array)
    ], prepare: true)
  end

  # The PostgreSQL adapter's int[] (what `attribute :x, :integer, array: true`
  # declares), looked up once the adapter is loaded.
  def self.integer_array
    @integer_array ||= ActiveRecord::Type.lookup(:integer, array: true, adapter: :postgresql)
  end
  private_class_method :integer_array

  def as_json(_options = nil)
    { "id" => id, "randomNumber" => randomnumber }
  end
end
