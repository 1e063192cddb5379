Rails.application.configure do
  config.cache_classes = true
  config.eager_load = false

  # Show full error reports. The exceptions app still answers, as in production.
  config.consider_all_requests_local = false
  config.action_dispatch.show_exceptions = true

  config.logger = ActiveSupport::Logger.new(nil)
  config.active_support.deprecation = :stderr

  # No migrations and no schema file: the database is SPEC §8.1's, seeded by concur.
  config.active_record.maintain_test_schema = false
end
