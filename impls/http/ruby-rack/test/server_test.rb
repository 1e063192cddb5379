# frozen_string_literal: true

require_relative "test_helper"

# The routes and bad inputs of SPEC §2-§4 against the real Puma cluster.
class ServerTest < Minitest::Test
  def test_hello_routes_with_their_headers
    r = SERVER.get("/")
    assert_equal ["200", "Hello, World!", "text/plain; charset=utf-8"], [r.code, r.body, r["Content-Type"]]
    %w[Date Server Content-Length].each { |h| assert r[h], "#{h} header missing" }
    r = SERVER.get("/json?x=1")
    assert_equal ["200", { "message" => "Hello, World!" }, "application/json"], [r.code, JSON.parse(r.body), r["Content-Type"]]
    r = SERVER.get("/page")
    assert_equal ["200", "text/html; charset=utf-8"], [r.code, r["Content-Type"]]
    assert_equal File.binread(File.join(ROOT, "../../../spec/static/hello.html")), r.body.b
  end

  def test_unknown_path_wrong_method_and_bad_user
    assert_equal "404", SERVER.get("/nope").code
    assert_equal "404", SERVER.get("/user/get").code
    r = SERVER.post("/json", "")
    assert_equal ["405", "GET, HEAD"], [r.code, r["Allow"]]
    assert_equal "405", SERVER.get("/user/set/alice").code
    ["%41", "a%2Fb", "a/b", "x" * 65].each do |name|
      r = SERVER.get("/user/get/#{name}")
      assert_equal ["400", "text/plain; charset=utf-8"], [r.code, r["Content-Type"]], name
      refute_includes r.body, "\n"
    end
  end

  def test_user_value_round_trip_and_replace
    value = { "name" => "Zoë", "tags" => ["a", 1, 2.5, nil, true], "nested" => { "n" => -3 } }
    assert_equal "OK", SERVER.post("/user/set/ruby_rt", JSON.generate(value)).body
    assert_equal value, JSON.parse(SERVER.get("/user/get/ruby_rt").body)
    SERVER.post("/user/set/ruby_rt", '{"v":2}')
    assert_equal({ "v" => 2 }, JSON.parse(SERVER.get("/user/get/ruby_rt").body))
    assert_equal "404", SERVER.get("/user/get/ruby_nobody").code
  end

  def test_bad_user_bodies
    ["[1]", "42", "null", "not json", "", "{\"a\":1} x", "{\"name\":\"\xff\"}".b, "{\"\xfe\":1}".b].each do |body|
      assert_equal "400", SERVER.post("/user/set/ruby_bad", body).code, body.inspect
    end
    assert_equal "404", SERVER.get("/user/get/ruby_bad").code
  end

  def test_passwords
    assert_equal "200", SERVER.post("/password/set/ruby_pw", '{"password":"s3cret"}').code
    assert_equal "200", SERVER.post("/password/verify/ruby_pw", '{"password":"s3cret"}').code
    assert_equal "403", SERVER.post("/password/verify/ruby_pw", '{"password":"other"}').code
    assert_equal "404", SERVER.post("/password/verify/ruby_nopw", '{"password":"x"}').code
    too_long = JSON.generate("password" => "é" * 36 + "x")
    ["{}", '{"password":5}', '["password"]', '{"password":"a\u0000b"}', too_long, "{\"password\":\"\xff\"}".b].each do |body|
      assert_equal "400", SERVER.post("/password/set/ruby_pw", body).code, body.inspect
    end
    assert_equal "200", SERVER.post("/password/set/ruby_pw", JSON.generate("password" => "é" * 36)).code
  end

  def test_body_limit
    exact = "{\"v\":\"#{'a' * ((1 << 20) - 8)}\"}"
    assert_equal 1 << 20, exact.bytesize
    assert_equal "200", SERVER.post("/user/set/ruby_big", exact).code
    assert_equal "413", SERVER.post("/user/set/ruby_big", exact + " ").code
    assert_equal "413", SERVER.post("/password/set/ruby_big", exact + " ").code
  end

  # Regression: Puma 5.6 gave the requests pipelined behind a body to that
  # body (lib/concur/puma_pipelining.rb).
  def test_requests_pipelined_behind_a_body_are_answered_in_order
    requests = [["POST", "/user/set/ruby_pipe", '{"p":1}'], ["GET", "/user/get/ruby_pipe", ""], ["GET", "/nope", ""]]
    bytes = requests.map { |m, p, b| "#{m} #{p} HTTP/1.1\r\nHost: x\r\nContent-Length: #{b.bytesize}\r\n\r\n#{b}" }.join
    SERVER.raw(bytes) do |socket|
      statuses = 3.times.map { read_response(socket) }
      assert_equal [["200", "OK"], ["200", '{"p":1}'], ["404", "not found: /nope"]], statuses
    end
  end

  def test_malformed_request_is_400_and_server_keeps_serving
    SERVER.raw("GARBAGE\r\n\r\n") { |socket| assert_match(%r{\AHTTP/1\.1 400}, socket.read) }
    assert_equal "200", SERVER.get("/").code
  end

  # SPEC §5: a write is seen through every worker, whichever takes the connection.
  def test_store_is_shared_by_the_workers
    SERVER.post("/user/set/ruby_shared", '{"s":true}')
    SERVER.post("/password/set/ruby_shared", '{"password":"pw"}')
    10.times do
      assert_equal '{"s":true}', SERVER.get("/user/get/ruby_shared").body
      assert_equal "200", SERVER.post("/password/verify/ruby_shared", '{"password":"pw"}').code
    end
  end

  def test_concurrent_long_polls_wait_on_their_threads
    start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    codes = 40.times.map { Thread.new { SERVER.get("/longPoll").code } }.map(&:value)
    elapsed = Process.clock_gettime(Process::CLOCK_MONOTONIC) - start
    assert_equal ["200"], codes.uniq
    assert_operator elapsed, :>=, 0.3
    assert_operator elapsed, :<, 2.0
  end

  private

  def read_response(socket)
    status = socket.gets[/\AHTTP\/1\.1 (\d+)/, 1]
    length = 0
    while (line = socket.gets) != "\r\n"
      length = Integer(line.split(":", 2).last) if line.downcase.start_with?("content-length:")
    end
    [status, socket.read(length)]
  end
end
