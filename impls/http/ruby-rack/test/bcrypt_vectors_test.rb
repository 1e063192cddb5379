# frozen_string_literal: true

require "minitest/autorun"
require "json"
require_relative "../lib/concur/hasher"

# spec/bcrypt-vectors.json (SPEC §7): hashes made by another runtime, $2a$
# and $2b$, verify with ruby-bcrypt, directly and through the app's Hasher.
class BcryptVectorsTest < Minitest::Test
  VECTORS = JSON.parse(File.read(File.expand_path("../../../../spec/bcrypt-vectors.json", __dir__))).fetch("vectors")

  def test_every_vector_verifies
    refute_empty VECTORS
    hasher = Concur::Hasher.new(4)
    VECTORS.each do |v|
      assert_equal v["matches"], BCrypt::Password.new(v["hash"]) == v["password"], "#{v['password'].inspect} against #{v['hash']}"
      assert_equal v["matches"], hasher.match?(v["hash"], v["password"])
    end
  end

  def test_both_prefixes_are_covered
    assert_equal %w[$2a$ $2b$], VECTORS.map { |v| v["hash"][0, 4] }.uniq.sort
  end

  def test_hashes_at_the_configured_cost
    hash = Concur::Hasher.new(5).create("secret")
    assert_equal 5, BCrypt::Password.new(hash).cost
    assert Concur::Hasher.new(5).match?(hash, "secret")
  end
end
