# A row of `world` (SPEC §8.1). PostgreSQL folds the column's name to
# `randomnumber`; the routes answer it as `randomNumber`.
class World < ApplicationRecord
  self.table_name = "world"

  ROWS = 10_000

  # A number of 1..ROWS (an id, or a new randomNumber), other than
  # `other_than` when given.
  def self.random_id(other_than: nil)
    loop do
      n = rand(1..ROWS)
      return n unless n == other_than
    end
  end

  # /slowdb's read: the query itself waits `seconds` in pg_sleep, holding
  # its connection (SPEC §8.3). The id is a bind of a prepared statement.
  def self.find_slowly(id, seconds)
    from("world, pg_sleep(#{Float(seconds)})").find(id)
  end

  def as_json(_options = nil)
    { "id" => id, "randomNumber" => randomnumber }
  end
end
