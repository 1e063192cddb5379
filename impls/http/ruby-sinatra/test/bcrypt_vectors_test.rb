# frozen_string_literal: true

require "test_helper"
require "bcrypt"

# spec/bcrypt-vectors.json: hashes made by another runtime must verify here,
# `$2a$` and `$2b$` alike.
class BcryptVectorsTest < Minitest::Test
  VECTORS = JSON.parse(File.read(File.join(SPEC_DIR, "bcrypt-vectors.json"))).fetch("vectors")

  def test_the_vectors_cover_both_prefixes
    assert_equal %w[$2a$ $2b$], VECTORS.map { |v| v["hash"][0, 4] }.uniq.sort
  end

  VECTORS.each_with_index do |vector, i|
    define_method("test_vector_#{i}_#{vector['hash'][0, 4]}") do
      hash = BCrypt::Password.new(vector.fetch("hash"))
      assert_equal vector.fetch("matches"), hash == vector.fetch("password"),
                   "#{vector['hash']} against #{vector['password'].inspect}"
    end
  end

  def test_a_new_hash_verifies_at_the_configured_cost
    hash = BCrypt::Password.create("pässword", cost: 5)
    assert_equal 5, hash.cost
    assert BCrypt::Password.new(hash.to_s) == "pässword"
    refute BCrypt::Password.new(hash.to_s) == "password"
  end
end
