require "test_helper"

# /updates' write (spec/POLICIES.md §6): World.update_numbers, one UPDATE
# for all the rows, against the real PostgreSQL of test/database_helper.rb.
class WorldTest < ActiveSupport::TestCase
  setup { @pg = TestDatabase.connect }
  teardown { @pg.close }

  # A row's version (xmin) changes whenever an UPDATE writes it, whatever
  # the number: `update!` would have sent nothing for the unchanged one.
  test "every row is written, one keeping its stored number too" do
    changed = World.find(1)
    kept = World.find(2)
    changed.randomnumber = changed.randomnumber % World::ROWS + 1
    versions = [version(1), version(2)]
    World.update_numbers([kept, changed])
    assert_equal [changed.randomnumber, kept.randomnumber], [stored(1), stored(2)]
    assert_empty [version(1), version(2)] & versions
  end

  test "an id given twice keeps one of its two numbers" do
    first = World.find(3)
    second = World.find(3)
    first.randomnumber = 17
    second.randomnumber = 18
    World.update_numbers([first, second])
    assert_includes [17, 18], stored(3)
  end

  test "its statement is prepared on the connection" do
    World.update_numbers([World.find(4)])
    statements = World.connection.select_values("SELECT statement FROM pg_prepared_statements")
    assert_includes statements, World::UPDATE_NUMBERS
  end

  private

  def stored(id)
    Integer(@pg.exec_params("SELECT randomnumber FROM world WHERE id = $1", [id]).getvalue(0, 0))
  end

  def version(id)
    @pg.exec_params("SELECT xmin::text FROM world WHERE id = $1", [id]).getvalue(0, 0)
  end
end
