ENV["RAILS_ENV"] ||= "test"
# Short waits, so that the tests of /page and /longPoll stay quick.
ENV["CONCUR_BCRYPT_COST"] ||= "4"
ENV["CONCUR_LONGPOLL_MS"] ||= "300"
ENV["CONCUR_PAGE_DELAY_MS"] ||= "300"
ENV["CONCUR_PAGE_DELAY_EVERY"] ||= "3"
# The database routes' tests need PostgreSQL, and the app reads its URL at boot.
require_relative "database_helper"
ENV["CONCUR_DB_URL"] = TestDatabase.url
require_relative "../config/environment"
require "rails/test_help"

class ActiveSupport::TestCase
  # Active Record's test fixtures would run each test in a transaction of the
  # app's connection, which the test's own connection could not see into:
  # every test here sees the database as the server leaves it.
  self.use_transactional_tests = false
end
