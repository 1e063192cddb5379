# The JSON database routes of SPEC §8.3. Each request's thread holds one
# connection of this worker's pool for all its statements (when all are
# taken it waits behind ConnectionPermits, config/database.yml's
# checkout_timeout) and gives it back before it renders the JSON
# (DatabaseRoute#with_database).
class WorldsController < ApplicationController
  include DatabaseRoute

  MAX_QUERIES = 500

  def show
    render json: with_database { World.find(World.random_id) }
  end

  def index
    render json: with_database { random_worlds }
  end

  # Read one by one as /queries, each given a new number, then all written
  # back by one statement on the same connection (World.update_numbers, ids
  # in ascending order, no transaction). The answer keeps the read order.
  def update
    worlds = with_database do
      read = random_worlds
      read.each { |world| world.randomnumber = World.random_id }
      World.update_numbers(read)
      read
    end
    render json: worlds
  end

  def slow
    render json: with_database { World.find_slowly(World.random_id, Rails.configuration.x.db_slow) }
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
