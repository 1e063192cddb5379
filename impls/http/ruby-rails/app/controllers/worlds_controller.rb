# The JSON database routes of SPEC §8.3. Each request's thread checks out
# one connection of this worker's pool when it first queries and keeps it to
# the end of the request; when all are taken, it waits in the pool's queue
# (config/database.yml, checkout_timeout).
class WorldsController < ApplicationController
  include DatabaseRoute

  MAX_QUERIES = 500

  def show
    render json: World.find(World.random_id)
  end

  def index
    render json: random_worlds
  end

  # Read one by one, then each saved the Active Record way: a new number
  # assigned and `update!` (its own transaction, one row each, so two
  # requests cannot deadlock). Active Record writes only changed
  # attributes, and `update!` with the number the row already holds sends
  # no UPDATE at all (1 row in 10,000): the number is drawn again until it
  # differs, as TechEmpower's Rails entry does, so that every row is written
  # (SPEC §8.3).
  def update
    worlds = random_worlds
    worlds.each { |world| world.update!(randomnumber: World.random_id(other_than: world.randomnumber)) }
    render json: worlds
  end

  def slow
    render json: World.find_slowly(World.random_id, Rails.configuration.x.db_slow)
  end

  private

  def random_worlds
    Array.new(query_count) { World.find(World.random_id) }
  end

  # N of SPEC §8.3: not an integer counts as 1, then clamped to 1..500.
  def query_count
    (Integer(params[:queries].to_s, 10, exception: false) || 1).clamp(1, MAX_QUERIES)
  end
end
