# frozen_string_literal: true

require "bcrypt"
require "json"
require "puma/const"
require "sinatra/base"
require "time"
require_relative "config"
require_relative "database"
require_relative "store"

module Concur
  # The routes of SPEC §2 as a modular Sinatra application, with the bad-input
  # order of §3: unknown path 404, wrong method 405, bad {user} 400, body over
  # 1 MiB 413, bad JSON 400. Every answer this class writes is text/plain with
  # one line unless a route says otherwise; Sinatra's HTML error pages never
  # appear.
  class App < Sinatra::Base
    USER_NAME = /\A[A-Za-z0-9_.-]{1,64}\z/.freeze
    MAX_BODY = 1 << 20 # bytes, SPEC §3.5
    MAX_PASSWORD = 72 # bytes of UTF-8, bcrypt's limit
    SERVER = "Puma/#{Puma::Const::PUMA_VERSION} Sinatra/#{Sinatra::VERSION}"

    # Each route's path pattern and methods, for the 405 and its Allow header
    # (Sinatra itself answers 404 to a known path with another method).
    ROUTES = {
      %r{\A/\z} => "GET, HEAD",
      %r{\A/json\z} => "GET, HEAD",
      %r{\A/page\z} => "GET, HEAD",
      %r{\A/longPoll\z} => "GET, HEAD",
      %r{\A/password/(set|verify)/} => "POST",
      %r{\A/user/set/} => "POST",
      %r{\A/user/get/} => "GET, HEAD",
      %r{\A/(db|queries|updates|fortunes|slowdb)\z} => "GET, HEAD"
    }.freeze
    WORLD_ROWS = 10_000
    MAX_QUERIES = 500
    MAX_SPIN_MS = 10_000
    ADDED_FORTUNE = { id: 0, message: "Additional fortune added at request time." }.freeze

    # The every-Nth /page counter, one per process (SPEC §2): created before
    # Puma forks, so each worker counts from its own copy.
    class Counter
      def initialize
        @count = 0
        @lock = Mutex.new
      end

      def next
        @lock.synchronize { @count += 1 }
      end
    end

    # The bodies of this API are JSON whatever Content-Type says (SPEC §3 does
    # not check it). Rack 2 parses the body of a POST without Content-Type,
    # or with a form type, into params before any route runs: work the other
    # servers do not do, and a 500 for a 1 MiB body (Rack's key-space limit).
    class JsonBodies
      def initialize(app)
        @app = app
      end

      def call(env)
        env["CONTENT_TYPE"] = "application/json" if env["REQUEST_METHOD"] == "POST"
        @app.call(env)
      end
    end

    use JsonBodies

    configure do
      set :concur, Config.from_env
      set :store, Store.new # replaced by a SharedStore proxy in each Puma worker
      set :page_requests, Counter.new
      # spec/POLICIES.md §2: one bcrypt hash in progress per process (one
      # process per core). bcrypt-ruby hashes without the GVL, so without the
      # lock every thread of the pool could hash at once, time-slicing the
      # process's core; the others queue on the Mutex while the pool goes on
      # serving. Created before Puma forks: each worker has its own.
      set :bcrypt_lock, Mutex.new
      # SPEC §8: Sequel's Database, no connection opened yet (nil without CONCUR_DB_URL).
      set :database, Database.connect(settings.concur)
      set :views, File.expand_path("../../views", __dir__)
      set :default_content_type, "text/plain"
      set :show_exceptions, false
      set :raise_errors, false
      set :dump_errors, true # backtraces of 500s go to stderr, never to the client
      set :x_cascade, false
      # Two of rack-protection's defaults would change answers SPEC §2-3
      # define: PathTraversal decodes %2e, %2f and %5c in PATH_INFO before
      # routing (the invalid raw name `a%2eb` would become `a.b`; §3.4 judges
      # the raw path, and no route touches files), and JsonCsrf answers 403
      # to a JSON GET with a cross-site Referer (JSON hijacking needs cookies;
      # this API has none). The others only add headers or drop a session.
      set :protection, except: %i[path_traversal json_csrf]
    end

    after do
      headers "Date" => Time.now.httpdate, "Server" => SERVER
    end

    get "/" do
      "Hello, World!"
    end

    get "/json" do
      content_type :json
      JSON.generate({ message: "Hello, World!" })
    end

    get "/page" do
      sleep(settings.concur.page_delay) if (settings.page_requests.next % settings.concur.page_delay_every).zero?
      content_type :html
      File.binread(settings.concur.page_file)
    end

    # A Puma thread per request: the wait blocks only this request's thread
    # (SPEC §2's thread-per-connection case; the pool size is in config/puma.rb).
    get "/longPoll" do
      sleep(settings.concur.long_poll)
      "OK"
    end

    post "/password/set/*" do
      user = user_name
      password = password_from_body
      hash = bcrypt { BCrypt::Password.create(password, cost: settings.concur.bcrypt_cost) }
      settings.store.set(:passwords, user, hash.to_s)
      "OK"
    end

    post "/password/verify/*" do
      user = user_name
      password = password_from_body
      stored = settings.store.get(:passwords, user)
      if stored.nil?
        # Hash once anyway, so that the 404 takes as long as a real check.
        bcrypt { BCrypt::Password.create(password, cost: settings.concur.bcrypt_cost) }
        halt 404, "no password set for this user"
      end
      halt 403, "wrong password" unless bcrypt { BCrypt::Password.new(stored) == password }
      "OK"
    end

    post "/user/set/*" do
      user = user_name
      value = json_body
      halt 400, "user info must be a JSON object" unless value.is_a?(Hash)
      settings.store.set(:users, user, value)
      "OK"
    end

    get "/user/get/*" do
      value = settings.store.get(:users, user_name)
      halt 404, "no user info for this user" if value.nil?
      content_type :json
      JSON.generate(value)
    end

    # -- the database routes (SPEC §8.3) ------------------------------------

    get "/db" do
      content_type :json
      JSON.generate(database { |db| world(db.row(random_id)) })
    end

    get "/queries" do
      content_type :json
      JSON.generate(database { |db| read_rows(db) })
    end

    # Read one by one as /queries on the request's connection, then every row
    # written back by one UPDATE on that connection, in ascending id order (no
    # transaction: one statement is atomic). Every row is written, even one
    # whose new number equals the stored one. The answer keeps the read order.
    get "/updates" do
      rows = database do |db|
        read = read_rows(db).each { |row| row["randomNumber"] = random_id }
        sorted = read.sort_by { |row| row["id"] }
        db.update(sorted.map { |row| row["id"] }, sorted.map { |row| row["randomNumber"] })
        read
      end
      content_type :json
      JSON.generate(rows)
    end

    get "/fortunes" do
      fortunes = database(&:fortunes) << ADDED_FORTUNE
      # String#<=> compares bytes: for UTF-8, code point order.
      @fortunes = fortunes.sort_by { |fortune| fortune[:message] }
      content_type :html
      erb :fortunes
    end

    get "/slowdb" do
      content_type :json
      JSON.generate(database { |db| world(db.slow(random_id, settings.concur.db_slow)) })
    end

    # The fault routes of SPEC §9, routes only with CONCUR_FAULTS=1. The
    # panic is any route's bug: Sinatra's error handler (show_exceptions and
    # raise_errors off) answers it 500 and dumps its backtrace to stderr.
    if concur.faults
      get "/fault/panic" do
        raise "fault: /fault/panic"
      end

      # Computes on this request's Puma thread for ?ms= milliseconds (read as
      # queries is: 0 unless an integer, clamped to 0..10000); the GVL hands
      # the interpreter to another thread every 100 ms meanwhile.
      get "/fault/spin" do
        ms = (Integer(params["ms"].to_s, 10, exception: false) || 0).clamp(0, MAX_SPIN_MS)
        deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + ms / 1000.0
        nil while Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
        "OK"
      end
    end

    # No route matched: a known path with another method is 405, any other
    # path 404 (SPEC §3.2-3.3).
    error Sinatra::NotFound do
      allowed = ROUTES.find { |pattern, _| pattern.match?(request.path_info) }&.last
      if allowed
        status 405
        headers "Allow" => allowed
        "method not allowed: #{request.request_method} (allowed: #{allowed})"
      else
        "not found"
      end
    end

    # Raised by Sinatra for a query string or form it cannot parse.
    error Sinatra::BadRequest do
      "bad request"
    end

    error do
      "internal server error"
    end

    helpers do
      # Runs the block on one pooled connection, held for all its
      # statements; a database that cannot be reached or used is a 503 with
      # Sequel's reason on one line (SPEC §8.4).
      def database(&block)
        statements = settings.database
        unavailable("CONCUR_DB_URL is not set") unless statements
        statements.hold { block.call(statements) }
      rescue Sequel::Error => e
        unavailable(e.message.split.join(" "))
      end

      # A route may have set its JSON type before the database failed.
      def unavailable(reason)
        content_type :text
        halt 503, "database unavailable: #{reason}"
      end

      def read_rows(db)
        Array.new(query_count) { world(db.row(random_id)) }
      end

      def world(row)
        { "id" => row[:id], "randomNumber" => row[:randomnumber] }
      end

      # N of SPEC §8.3: not an integer counts as 1, then clamped to 1..500.
      def query_count
        (Integer(params["queries"].to_s, 10, exception: false) || 1).clamp(1, MAX_QUERIES)
      end

      def random_id
        rand(1..WORLD_ROWS)
      end

      # The fortunes template's escaping, as Sinatra's FAQ writes it.
      def h(text)
        Rack::Utils.escape_html(text)
      end

      # Runs one bcrypt call under the process's lock (settings.bcrypt_lock).
      def bcrypt(&block)
        settings.bcrypt_lock.synchronize(&block)
      end

      # {user} as sent: the third segment of the raw (undecoded) path and
      # everything after it, so that `a/b` and `%41` are refused (SPEC §3.4).
      def user_name
        name = request.path_info.split("/", 4)[3].to_s
        halt 400, "invalid user name: must match [A-Za-z0-9_.-]{1,64}" unless USER_NAME.match?(name)
        name
      end

      # The request body parsed by Ruby's json into Hash/Array/String/...
      # Puma has already read it (to a Tempfile when large); the 413 is
      # decided on its length.
      def json_body
        halt 413, "request body over 1 MiB" if request.content_length.to_i > MAX_BODY
        request.body.rewind
        body = request.body.read(MAX_BODY + 1) || +""
        halt 413, "request body over 1 MiB" if body.bytesize > MAX_BODY
        # Ruby's parser passes invalid UTF-8 through inside strings.
        halt 400, "request body is not valid UTF-8" unless body.force_encoding(Encoding::UTF_8).valid_encoding?
        JSON.parse(body)
      rescue JSON::ParserError
        halt 400, "request body is not valid JSON"
      end

      def password_from_body
        body = json_body
        password = body["password"] if body.is_a?(Hash)
        halt 400, 'body must be a JSON object with a string member "password"' unless password.is_a?(String)
        halt 400, "password longer than 72 bytes" if password.bytesize > MAX_PASSWORD
        halt 400, "password contains U+0000" if password.include?("\0")
        password
      end
    end
  end
end
