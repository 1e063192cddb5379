# frozen_string_literal: true

# The application reads its settings once, when it is loaded.
ENV["PORT"] ||= "0"
ENV["CONCUR_BCRYPT_COST"] ||= "4"
ENV["CONCUR_PAGE_DELAY_MS"] ||= "300"
ENV["CONCUR_LONGPOLL_MS"] ||= "300"
ENV["RACK_ENV"] = "test"

require "minitest/autorun"
require "json"

ROOT = File.expand_path("..", __dir__)
SPEC_DIR = File.expand_path("../../../spec", ROOT)
