require "test_helper"

# SPEC §2 through Rails' integration test client (the full middleware stack,
# the exceptions app included, without a socket).
class RoutesTest < ActionDispatch::IntegrationTest
  def assert_text(status, body = nil)
    assert_response status
    assert_equal "text/plain", response.media_type
    assert_equal body, response.body if body
    assert_equal 1, response.body.lines.size, "one line: #{response.body.inspect}"
    assert response.headers["Date"], "Date header"
    assert response.headers["Server"], "Server header"
  end

  test "GET / and /json" do
    get "/?from=concur"
    assert_text 200, "Hello, World!"
    get "/json"
    assert_response 200
    assert_equal "application/json", response.media_type
    assert_equal({ "message" => "Hello, World!" }, JSON.parse(response.body))
  end

  test "/page is the file, and every Nth request waits" do
    page = File.binread(Rails.configuration.x.page_file)
    every = Rails.configuration.x.page_delay_every
    waits = Array.new(every * 2) do
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      get "/page"
      assert_response 200
      assert_equal "text/html; charset=utf-8", response.headers["Content-Type"]
      assert_equal page, response.body.b
      Process.clock_gettime(Process::CLOCK_MONOTONIC) - started >= Rails.configuration.x.page_delay
    end
    assert_equal 2, waits.count(true), "two of #{every * 2} requests wait"
  end

  test "/longPoll answers OK after the wait" do
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    get "/longPoll"
    assert_text 200, "OK"
    assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, :>=, Rails.configuration.x.longpoll_wait
  end

  test "passwords: set, verify, wrong, unknown, replace" do
    post "/password/set/ada", params: '{"password":"s3cret"}'
    assert_text 200, "OK"
    post "/password/verify/ada", params: '{"password":"s3cret"}'
    assert_text 200, "OK"
    post "/password/verify/ada", params: '{"password":"nope"}'
    assert_text 403
    post "/password/verify/nobody", params: '{"password":"s3cret"}'
    assert_text 404
    post "/password/set/ada", params: '{"password":"n3w"}', headers: { "CONTENT_TYPE" => "application/json" }
    post "/password/verify/ada", params: '{"password":"n3w"}'
    assert_text 200, "OK"
  end

  test "users: the JSON value comes back, nulls in arrays included" do
    value = { "name" => "Ada", "list" => [1, nil, [2.5, "✓"], {}], "none" => nil, "big" => 9_007_199_254_740_991 }
    post "/user/set/ada.l_1", params: JSON.generate(value)
    assert_text 200, "OK"
    get "/user/get/ada.l_1"
    assert_response 200
    assert_equal "application/json", response.media_type
    assert_equal value, JSON.parse(response.body)
    post "/user/set/ada.l_1", params: '{"v":2}', headers: { "CONTENT_TYPE" => "application/json" }
    get "/user/get/ada.l_1"
    assert_equal({ "v" => 2 }, JSON.parse(response.body))
    get "/user/get/nobody"
    assert_text 404
  end
end
