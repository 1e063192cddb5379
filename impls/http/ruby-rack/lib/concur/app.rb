# frozen_string_literal: true

require "json"

module Concur
  # The routes of SPEC §2, dispatched by hand on PATH_INFO and REQUEST_METHOD
  # the way a bare Rack app (or Roda's routing tree) does, and the refusals of
  # §3 in their order: 404 for an unknown path, 405 for another method, 400
  # for a bad {user}, 413 for a body over 1 MiB, 400 for a bad body.
  #
  # Puma gives one thread to each request, so a handler that waits (the page
  # delay, the long poll, a database connection or query) simply blocks its
  # own thread. The database routes (SPEC §8) are WorldRoutes'.
  class App
    USER_NAME = /\A[A-Za-z0-9_.-]{1,64}\z/.freeze
    MAX_BODY = 1 << 20
    MAX_PASSWORD = 72
    TEXT = "text/plain; charset=utf-8"
    JSON_TYPE = "application/json"
    HTML = "text/html; charset=utf-8"

    # database: the process's connections; by default a pool of the first
    # process's share of CONCUR_DB_POOL (all of it in single mode).
    def initialize(config, store, database = Database.new(config.db_url, config.db_pool_share(0)))
      @config = config
      @store = store
      @hasher = Hasher.new(config.bcrypt_cost)
      @page_count = 0
      @page_lock = Mutex.new
      @world = WorldRoutes.new(database, config.db_slow)
    end

    def call(env)
      route(env["PATH_INFO"], env)
    rescue HttpError => e
      text(e.status, e.message, e.headers)
    rescue Database::Unavailable => e
      text(503, "database unavailable: #{e.message}")
    end

    private

    # PATH_INFO is the raw path Puma read (no query, nothing decoded), so
    # "%41" reaches the {user} check as it was sent.
    def route(path, env)
      case path
      when "/" then get(env) { text(200, "Hello, World!") }
      when "/json" then get(env) { json(200, { "message" => "Hello, World!" }) }
      when "/page" then get(env) { page }
      when "/longPoll" then get(env) { long_poll }
      when "/db" then get(env) { @world.single }
      when "/queries" then get(env) { @world.queries(env) }
      when "/updates" then get(env) { @world.updates(env) }
      when "/fortunes" then get(env) { @world.fortunes }
      when "/slowdb" then get(env) { @world.slow }
      when %r{\A/password/set/(.*)\z} then post(env, $1) { |user| set_password(user, env) }
      when %r{\A/password/verify/(.*)\z} then post(env, $1) { |user| verify_password(user, env) }
      when %r{\A/user/set/(.*)\z} then post(env, $1) { |user| set_user(user, env) }
      when %r{\A/user/get/(.*)\z} then get(env, $1) { |user| get_user(user) }
      when "/fault/panic" then fault(path) { get(env) { raise "fault: /fault/panic" } }
      when "/fault/spin" then fault(path) { get(env) { spin(env) } }
      else raise HttpError.new(404, "not found: #{path}")
      end
    end

    def get(env, user = nil, &handler)
      allow(env, "GET", "HEAD")
      handler.call(user && user_name(user))
    end

    def post(env, user, &handler)
      allow(env, "POST")
      handler.call(user_name(user))
    end

    def allow(env, *methods)
      return if methods.include?(env["REQUEST_METHOD"])

      raise HttpError.new(405, "method not allowed: use #{methods.first}", { "Allow" => methods.join(", ") })
    end

    def user_name(raw)
      return raw if USER_NAME.match?(raw)

      raise HttpError.new(400, "invalid user name: must match [A-Za-z0-9_.-]{1,64}")
    end

    # The fault routes of SPEC §9 are routes only with CONCUR_FAULTS=1.
    def fault(path)
      raise HttpError.new(404, "not found: #{path}") unless @config.faults

      yield
    end

    # -- handlers ---------------------------------------------------------

    MAX_SPIN_MS = 10_000

    # Computes on this request's Puma thread for ?ms= milliseconds (read as
    # /queries reads its count: 0 unless an integer, clamped to 0..10000).
    # The GVL hands the interpreter to another thread every 100 ms meanwhile.
    def spin(env)
      ms = Integer(Rack::Utils.parse_query(env["QUERY_STRING"])["ms"].to_s, 10, exception: false) || 0
      deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + ms.clamp(0, MAX_SPIN_MS) / 1000.0
      nil while Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
      text(200, "OK")
    end

    def page
      count = @page_lock.synchronize { @page_count += 1 }
      sleep(@config.page_delay) if (count % @config.page_delay_every).zero?
      [200, { "Content-Type" => HTML }, [File.binread(@config.page_file)]]
    end

    def long_poll
      sleep(@config.longpoll)
      text(200, "OK")
    end

    def set_password(user, env)
      password = password_from(env)
      @store.set(:passwords, user, @hasher.create(password))
      text(200, "OK")
    end

    # An unknown user costs one hash too, so that its 404 takes as long as a
    # real check (the thesis' Listing 24).
    def verify_password(user, env)
      password = password_from(env)
      hash = @store.get(:passwords, user)
      if hash.nil?
        @hasher.create(password)
        raise HttpError.new(404, "no password set for #{user}")
      end
      raise HttpError.new(403, "wrong password") unless @hasher.match?(hash, password)

      text(200, "OK")
    end

    def set_user(user, env)
      value = json_body(env)
      raise HttpError.new(400, "the body must be a JSON object") unless value.is_a?(Hash)

      @store.set(:users, user, value)
      text(200, "OK")
    end

    def get_user(user)
      value = @store.get(:users, user)
      raise HttpError.new(404, "no user #{user}") if value.nil?

      json(200, value)
    end

    # -- bodies -----------------------------------------------------------

    # Puma has already read the body (into memory, or a Tempfile past 112 KB)
    # before the app runs; reading one byte past the limit tells "over 1 MiB".
    def body(env)
      bytes = env["rack.input"].read(MAX_BODY + 1) || +""
      raise HttpError.new(413, "request body over 1 MiB (#{MAX_BODY} bytes)") if bytes.bytesize > MAX_BODY

      bytes
    end

    # Ruby's JSON parser takes bytes that are not UTF-8 inside strings, so the
    # encoding is checked first (SPEC §2: such a body is not JSON).
    def json_body(env)
      text = body(env).force_encoding(Encoding::UTF_8)
      raise HttpError.new(400, "the body is not UTF-8") unless text.valid_encoding?

      JSON.parse(text)
    rescue JSON::ParserError
      raise HttpError.new(400, "the body is not valid JSON")
    end

    def password_from(env)
      value = json_body(env)
      password = value["password"] if value.is_a?(Hash)
      raise HttpError.new(400, 'the body must be a JSON object with a string member "password"') unless password.is_a?(String)
      raise HttpError.new(400, "password longer than #{MAX_PASSWORD} bytes of UTF-8") if password.bytesize > MAX_PASSWORD
      raise HttpError.new(400, "password contains U+0000") if password.include?("\0")

      password
    end

    # -- responses (Rack::ContentLength adds Content-Length) ----------------

    def text(status, body, headers = {})
      [status, { "Content-Type" => TEXT }.merge(headers), [body]]
    end

    def json(status, value)
      [status, { "Content-Type" => JSON_TYPE }, [JSON.generate(value)]]
    end
  end
end
