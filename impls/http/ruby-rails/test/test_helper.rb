ENV["RAILS_ENV"] ||= "test"
# Short waits, so that the tests of /page and /longPoll stay quick.
ENV["CONCUR_BCRYPT_COST"] ||= "4"
ENV["CONCUR_LONGPOLL_MS"] ||= "300"
ENV["CONCUR_PAGE_DELAY_MS"] ||= "300"
ENV["CONCUR_PAGE_DELAY_EVERY"] ||= "3"
require_relative "../config/environment"
require "rails/test_help"
