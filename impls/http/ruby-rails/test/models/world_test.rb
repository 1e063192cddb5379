require "test_helper"
require "minitest/mock"

# Active Record's `update!` sends no UPDATE when the new number equals the
# stored one (it writes changed attributes only); /updates draws again then,
# so that every row it answers is written (SPEC §8.3).
class WorldTest < ActiveSupport::TestCase
  test "a number equal to the one to replace is drawn again" do
    draws = [7, 7, 7, 9]
    World.stub(:rand, ->(_range) { draws.shift }) do
      assert_equal 9, World.random_id(other_than: 7)
    end
    assert_empty draws
  end

  test "without one to replace the first draw is kept" do
    World.stub(:rand, ->(_range) { 7 }) do
      assert_equal 7, World.random_id
    end
  end

  test "every draw is in 1..10000" do
    assert(Array.new(1000) { World.random_id(other_than: 1) }.all? { |n| (2..World::ROWS).cover?(n) })
  end
end
