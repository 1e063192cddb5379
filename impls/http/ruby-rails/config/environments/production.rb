Rails.application.configure do
  # Code is not reloaded between requests.
  config.cache_classes = true

  # Eager load code on boot, in the Puma master before it forks its workers.
  config.eager_load = true

  # Full error reports are disabled: exceptions go to config.exceptions_app.
  config.consider_all_requests_local = false

  # Nothing is served from public/.
  config.public_file_server.enabled = false

  # Logs go to STDOUT (the orchestrator keeps it). Rails logs three lines per
  # request at :info; the seed ran Puma with -q, and a benchmark would measure
  # the log writes, so the default level is :warn.
  config.logger = ActiveSupport::TaggedLogging.new(ActiveSupport::Logger.new($stdout))
  config.log_level = ENV.fetch("RAILS_LOG_LEVEL", "warn").to_sym

  config.active_support.deprecation = :silence

  # Rails 6.1 refuses to serve a request in production without a secret (its
  # request env carries a key generator), although this API signs and encrypts
  # nothing (no cookies, no sessions): one per boot is enough.
  config.secret_key_base = ENV.fetch("SECRET_KEY_BASE") { SecureRandom.hex(64) }
end
