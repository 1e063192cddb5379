# frozen_string_literal: true

require "test_helper"
require "rack/test"
require "concur/app"

# The routes and the bad inputs of SPEC §2-3 through Sinatra's own test
# client (Rack::Test), with the in-process store.
class AppTest < Minitest::Test
  include Rack::Test::Methods

  def app
    Concur::App
  end

  def post_json(path, body)
    post path, body.is_a?(String) ? body : JSON.generate(body)
  end

  def assert_text(status, body_pattern = nil)
    assert_equal status, last_response.status, last_response.body
    assert_equal "text/plain", last_response.media_type
    assert_equal 1, last_response.body.lines.size, "one line: #{last_response.body.inspect}"
    assert_match body_pattern, last_response.body if body_pattern
  end

  def test_hello_routes
    get "/"
    assert_text 200, /\AHello, World!\z/
    get "/json?x=1"
    assert_equal 200, last_response.status
    assert_equal "application/json", last_response.media_type
    assert_equal({ "message" => "Hello, World!" }, JSON.parse(last_response.body))
  end

  def test_page_is_the_file_and_every_nth_is_delayed
    file = File.binread(File.join(SPEC_DIR, "static", "hello.html"))
    times = Array.new(10) do
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      get "/page"
      assert_equal 200, last_response.status
      assert_equal "text/html", last_response.media_type
      assert_equal file, last_response.body
      Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
    end
    assert_equal 1, times.count { |t| t >= 0.3 }, "exactly one of ten delayed: #{times.inspect}"
  end

  def test_long_poll_waits
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    get "/longPoll"
    assert_text 200, /\AOK\z/
    assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, :>=, 0.3
  end

  def test_password_set_and_verify
    post_json "/password/verify/carol", { password: "pw" }
    assert_text 404
    post_json "/password/set/carol", { password: "pw" }
    assert_text 200, /\AOK\z/
    post_json "/password/verify/carol", { password: "pw" }
    assert_text 200, /\AOK\z/
    post_json "/password/verify/carol", { password: "nope" }
    assert_text 403
    post_json "/password/set/carol", { password: "new" }
    post_json "/password/verify/carol", { password: "new" }
    assert_text 200
  end

  def test_a_72_byte_password_is_accepted
    post_json "/password/set/long", { password: "é" * 36 }
    assert_text 200
    post_json "/password/verify/long", { password: "é" * 36 }
    assert_text 200
  end

  def test_user_set_and_get_keep_the_json_value
    value = { "name" => "Zoë", "n" => [1, 2.5, -(2**53 - 1)], "nested" => { "ok" => true, "no" => nil }, "e" => "\u0041" }
    post_json "/user/set/dave", value
    assert_text 200, /\AOK\z/
    get "/user/get/dave"
    assert_equal 200, last_response.status
    assert_equal "application/json", last_response.media_type
    assert_equal value, JSON.parse(last_response.body)
    post_json "/user/set/dave", { "replaced" => 1 }
    get "/user/get/dave"
    assert_equal({ "replaced" => 1 }, JSON.parse(last_response.body))
    get "/user/get/nobody"
    assert_text 404
  end

  # The fault routes of SPEC §9 too: the tests run without CONCUR_FAULTS=1.
  def test_unknown_paths_are_404
    ["/nope", "/JSON", "/user/get", "/json/extra", "/user/delete/x", "/index.html",
     "/fault/panic", "/fault/spin"].each do |path|
      get path
      assert_text 404
    end
    post "/password/reset/x", "{}"
    assert_text 404
  end

  def test_wrong_methods_are_405_with_allow
    { ["POST", "/"] => "GET, HEAD", ["DELETE", "/json"] => "GET, HEAD", ["PUT", "/page"] => "GET, HEAD",
      ["GET", "/password/set/a"] => "POST", ["GET", "/password/verify/a"] => "POST",
      ["GET", "/user/set/a"] => "POST", ["PATCH", "/user/get/a"] => "GET, HEAD" }.each do |(method, path), allow|
      custom_request method, path, "{}"
      assert_text 405
      assert_equal allow, last_response.headers["Allow"], "#{method} #{path}"
    end
  end

  def test_the_method_is_judged_before_the_user_name
    get "/password/set/a%20b"
    assert_text 405
  end

  def test_bad_user_names_are_400_on_the_raw_path
    ["", "a/b", "%41", "a%20b", "%C3%BC", "a:b", "a@b", "a+b", "a~b", "a%2eb", "a%2fb", "x" * 65].each do |name|
      post_json "/password/set/#{name}", { password: "pw" }
      assert_text 400, /invalid user name/
      post_json "/password/verify/#{name}", { password: "pw" }
      assert_text 400, /invalid user name/
      post_json "/user/set/#{name}", { a: 1 }
      assert_text 400, /invalid user name/
      get "/user/get/#{name}"
      assert_text 400, /invalid user name/
    end
  end

  def test_bodies_over_one_mib_are_413_and_one_mib_is_accepted
    exact = %({"pad":"#{'a' * ((1 << 20) - 10)}"})
    assert_equal 1 << 20, exact.bytesize
    post "/user/set/big", exact
    assert_text 200
    post "/user/set/big", exact.sub("{", "{ ")
    assert_text 413
    post "/password/set/big", exact.sub("{", "{ ")
    assert_text 413
  end

  def test_bad_json_is_400
    ["not json", '{"password":', "{'password':'x'}", '{"password":"x"} trailing', ""].each do |body|
      %w[password/set password/verify user/set].each do |route|
        post "/#{route}/eve", body
        assert_text 400, /not valid JSON/
      end
    end
  end

  def test_bad_passwords_are_400
    ["{}", '{"password":5}', '{"password":null}', '{"password":["x"]}', '["password"]', '"password"',
     '{"password":"nul\u0000byte"}', %({"password":"#{'é' * 36}x"})].each do |body|
      %w[password/set password/verify].each do |route|
        post "/#{route}/frank", body
        assert_text 400
      end
    end
  end

  def test_user_bodies_that_are_not_objects_are_400
    ["[1,2]", '"str"', "42", "null", "true"].each do |body|
      post "/user/set/grace", body
      assert_text 400, /JSON object/
    end
    get "/user/get/grace"
    assert_text 404
  end

  def test_bodies_that_are_not_utf8_are_400
    ["{\"name\":\"\xff\"}", "{\"name\":\"ab\xc3\"}", "{\"name\":\"\xc0\x80\"}", "{\"name\":\"\xed\xa0\x80\"}",
     "{\"\xfe\":1}"].each do |body|
      post "/user/set/heidi", body.b
      assert_text 400, /UTF-8/
    end
    get "/user/get/heidi"
    assert_text 404
    post "/password/set/heidi", "{\"password\":\"\xff\"}".b
    assert_text 400, /UTF-8/
  end

  def test_a_form_content_type_does_not_change_how_a_body_is_read
    post "/user/set/ivan", '{"a":"100%"}', "CONTENT_TYPE" => "application/x-www-form-urlencoded"
    assert_text 200
    get "/user/get/ivan"
    assert_equal({ "a" => "100%" }, JSON.parse(last_response.body))
  end

  def test_every_response_has_date_server_type_and_length
    [[:get, "/"], [:get, "/nope"], [:post, "/user/set/%41"], [:get, "/user/get/nobody"], [:post, "/"]].each do |method, path|
      send(method, path)
      %w[Date Server Content-Type Content-Length].each do |name|
        assert last_response.headers[name], "#{method} #{path}: no #{name}"
      end
    end
  end

  # rack-protection is on, except the two protections that would change an
  # answer of the contract.
  def test_a_cross_site_referer_or_origin_does_not_change_an_answer
    get "/json", {}, "HTTP_REFERER" => "http://evil.example/", "HTTP_HOST" => "127.0.0.1"
    assert_equal 200, last_response.status
    assert_equal({ "message" => "Hello, World!" }, JSON.parse(last_response.body))
    post "/user/set/judy", '{"a":1}', "HTTP_ORIGIN" => "http://evil.example", "HTTP_HOST" => "127.0.0.1"
    assert_text 200
    get "/user/get/judy", {}, "HTTP_REFERER" => "http://evil.example/", "HTTP_X_FORWARDED_FOR" => "1.2.3.4",
                               "HTTP_CLIENT_IP" => "5.6.7.8"
    assert_equal 200, last_response.status
    assert_equal({ "a" => 1 }, JSON.parse(last_response.body))
  end
end
