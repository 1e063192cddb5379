# A row of `fortune` (SPEC §8.1).
class Fortune < ApplicationRecord
  self.table_name = "fortune"

  ADDED = "Additional fortune added at request time.".freeze

  # Every stored fortune and one added for this request, by message in code
  # point order (String#<=> compares the UTF-8 bytes).
  def self.page
    (all.to_a << new(id: 0, message: ADDED)).sort_by!(&:message)
  end
end
