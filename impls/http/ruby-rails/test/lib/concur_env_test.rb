require "test_helper"

# spec/POLICIES.md §6.3: worker i of P gets floor(CONCUR_DB_POOL / P), plus
# one if i < CONCUR_DB_POOL % P, so that the workers hold all of the pool.
class ConcurEnvTest < ActiveSupport::TestCase
  def shares(pool, workers)
    Array.new(workers) { |index| ConcurEnv.pool_share(pool, workers, index) }
  end

  test "the database pool is divided among the workers, the remainder to the first" do
    assert_equal [6, 5, 5], shares(16, 3)
    assert_equal [1, 1, 1, 1], shares(4, 4)
    assert_equal [8, 8], shares(16, 2)
    assert_equal [3, 2], shares(5, 2)
    assert_equal [16], shares(16, 1)
    (1..8).each { |pool| (1..pool).each { |n| assert_equal pool, shares(pool, n).sum, "#{pool} over #{n}" } }
  end

  test "one process, as the tests run, holds all of CONCUR_DB_POOL" do
    x = Rails.configuration.x
    assert_equal [1, x.db_pool], [x.db_workers, x.db_pool_share.call(0)]
    assert_equal x.db_pool, ActiveRecord::Base.connection_pool.size
  end
end
