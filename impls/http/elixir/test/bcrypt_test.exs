defmodule Concur.BcryptTest do
  use ExUnit.Case, async: true
  alias Concur.Bcrypt

  # The shared vectors of spec/: $2a$ and $2b$ hashes made by another runtime.
  @vectors Path.expand("../../../../spec/bcrypt-vectors.json", __DIR__)

  test "every shared vector verifies as it says" do
    %{"vectors" => vectors} = @vectors |> File.read!() |> :jiffy.decode([:return_maps])
    assert length(vectors) > 0
    prefixes = vectors |> Enum.map(&binary_part(&1["hash"], 0, 4)) |> Enum.uniq() |> Enum.sort()
    assert prefixes == ["$2a$", "$2b$"]

    for %{"password" => password, "hash" => hash, "matches" => matches} <- vectors do
      assert Bcrypt.verify(password, hash) == matches, "#{inspect(password)} against #{hash}"
    end
  end

  test "a new hash is $2b$ at the given cost and verifies" do
    assert {:ok, "$2b$04$" <> _ = hash} = Bcrypt.hash("pässwörd ✓", 4)
    assert Bcrypt.verify("pässwörd ✓", hash)
    refute Bcrypt.verify("pässwörd", hash)
    assert {:ok, other} = Bcrypt.hash("pässwörd ✓", 4)
    assert other != hash, "each hash gets a fresh salt"
  end

  test "72 bytes are hashed, more are refused" do
    max = String.duplicate("é", 36)
    assert {:ok, hash} = Bcrypt.hash(max, 4)
    assert Bcrypt.verify(max, hash)
    assert_raise ArgumentError, fn -> Bcrypt.hash(max <> "x", 4) end
  end

  test "what is not a bcrypt hash never verifies" do
    refute Bcrypt.verify("x", "")
    refute Bcrypt.verify("x", "plain text")
    refute Bcrypt.verify("", "$1$abc$def")
  end
end
