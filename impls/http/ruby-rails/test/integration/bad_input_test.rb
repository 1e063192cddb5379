require "test_helper"

# SPEC §3, in its order: 404, 405, invalid name, 413, invalid body. Every
# refusal is one line of text/plain, never a Rails page.
class BadInputTest < ActionDispatch::IntegrationTest
  def assert_refused(status)
    assert_response status
    assert_equal "text/plain", response.media_type
    assert_equal 1, response.body.lines.size, "one line: #{response.body.inspect}"
  end

  # The fault routes of SPEC §9 too: the tests run without CONCUR_FAULTS=1.
  test "unknown paths are 404, prefixes without their slash too" do
    %w[/nope /user/get /password/set /json.xml /user /pagex /fault/panic /fault/spin].each do |path|
      get path
      assert_refused 404
      post path, params: "{}"
      assert_refused 404
    end
  end

  test "a known path with another method is 405 with Allow" do
    [[:post, "/", "GET"], [:delete, "/json", "GET"], [:put, "/longPoll", "GET"],
     [:get, "/user/set/bob", "POST"], [:post, "/user/get/bob", "GET"], [:patch, "/password/verify/bob", "POST"],
     [:post, "/user/get/%41", "GET"]].each do |verb, path, allow|
      process verb, path, params: "{}"
      assert_refused 405
      assert_equal allow, response.headers["Allow"]
    end
  end

  test "a name outside [A-Za-z0-9_.-]{1,64} is 400, tested on the raw path" do
    ["", "a/b", "%41", "a%20b", "%C3%BC", "a:b", "a+b", "x" * 65].each do |name|
      get "/user/get/#{name}"
      assert_refused 400
      post "/user/set/#{name}", params: "{}"
      assert_refused 400
      post "/password/set/#{name}", params: '{"password":"x"}'
      assert_refused 400
    end
  end

  test "a body over 1 MiB is 413; exactly 1 MiB is accepted" do
    padding = ->(size) { %({"k":"#{"x" * (size - 8)}"}) }
    post "/user/set/big", params: padding.call(1_048_576)
    assert_response 200
    post "/user/set/big", params: padding.call(1_048_577)
    assert_refused 413
    post "/password/set/big", params: padding.call(1_048_577), headers: { "CONTENT_TYPE" => "application/json" }
    assert_refused 413
  end

  test "bodies that are not JSON, not UTF-8 or not the right shape are 400" do
    ["not json", '{"password":', "{'password':'x'}", '{"password":"x"} trailing', "",
     "{\"password\":\"\xff\"}", "[1]", '{"password":1}', %({"password":"#{"x" * 73}"}), '{"password":"a\u0000b"}'].each do |body|
      [{}, { "CONTENT_TYPE" => "application/json" }].each do |headers|
        post "/password/set/eve", params: body.b, headers: headers
        assert_refused 400
      end
    end
    ["{\"name\":\"\xff\"}", "{\"\xfe\":1}", "{\"name\":\"\xed\xa0\x80\"}", "[1, 2]", '"text"', "null", "nope"].each do |body|
      post "/user/set/eve", params: body.b
      assert_refused 400
    end
    get "/user/get/eve"
    assert_refused 404
  end

  test "a 72-byte password is accepted" do
    post "/password/set/max", params: JSON.generate(password: "é" * 36)
    assert_response 200
    post "/password/verify/max", params: JSON.generate(password: "é" * 36)
    assert_response 200
  end

  test "an exception past the controllers is one line of text/plain (the exceptions app)" do
    get "/", env: { "QUERY_STRING" => "bad=%" }
    assert_refused 400
    get "/json", env: { "REQUEST_METHOD" => "FOO" }
    assert_refused 405
  end
end
