require "test_helper"

# SPEC §7: every hash of spec/bcrypt-vectors.json ($2a$ and $2b$, made by
# Python's bcrypt) verifies with ruby-bcrypt, so hashes cross runtimes.
class BcryptVectorsTest < ActiveSupport::TestCase
  VECTORS = JSON.parse(File.read(Rails.root.join("../../../spec/bcrypt-vectors.json"))).fetch("vectors")

  test "the file has vectors of both prefixes" do
    assert_includes VECTORS.map { |v| v["hash"][0, 4] }.uniq.sort, "$2a$"
    assert_includes VECTORS.map { |v| v["hash"][0, 4] }.uniq.sort, "$2b$"
  end

  VECTORS.each_with_index do |vector, i|
    test "vector #{i} (#{vector["hash"][0, 7]}) #{vector["matches"] ? "matches" : "does not match"}" do
      assert_equal vector["matches"], BCrypt::Password.new(vector["hash"]) == vector["password"]
    end
  end

  test "a hash made here verifies" do
    digest = BCrypt::Password.create("pässword", cost: 4)
    assert BCrypt::Password.new(digest.to_s) == "pässword"
    refute BCrypt::Password.new(digest.to_s) == "password"
  end
end
