# frozen_string_literal: true

require "test_helper"
require "concur/config"

class ConfigTest < Minitest::Test
  def test_defaults_of_spec_section_1
    config = Concur::Config.from_env({ "PORT" => "8080" })
    assert_equal 8080, config.port
    assert_equal 1, config.cores
    assert_equal 10, config.bcrypt_cost
    assert_equal File.join(SPEC_DIR, "static", "hello.html"), config.page_file
    assert File.file?(config.page_file)
    assert_equal 10, config.page_delay_every
    assert_in_delta 2.0, config.page_delay
    assert_in_delta 5.0, config.long_poll
  end

  def test_values_are_read
    config = Concur::Config.from_env({ "PORT" => "1", "CONCUR_CORES" => "4", "CONCUR_BCRYPT_COST" => "20",
                                       "CONCUR_PAGE_FILE" => "/tmp/x", "CONCUR_PAGE_DELAY_EVERY" => "3",
                                       "CONCUR_PAGE_DELAY_MS" => "600", "CONCUR_LONGPOLL_MS" => "2000" })
    assert_equal [4, 20, "/tmp/x", 3], [config.cores, config.bcrypt_cost, config.page_file, config.page_delay_every]
    assert_in_delta 0.6, config.page_delay
    assert_in_delta 2.0, config.long_poll
  end

  def test_a_bad_value_names_the_variable
    error = assert_raises(Concur::Config::Error) { Concur::Config.from_env({ "PORT" => "1", "CONCUR_BCRYPT_COST" => "3" }) }
    assert_match(/CONCUR_BCRYPT_COST must be an integer from 4 to 31, got '3'/, error.message)
    error = assert_raises(Concur::Config::Error) { Concur::Config.from_env({ "PORT" => "1", "CONCUR_LONGPOLL_MS" => "5s" }) }
    assert_match(/CONCUR_LONGPOLL_MS/, error.message)
  end

  def test_port_is_required
    error = assert_raises(Concur::Config::Error) { Concur::Config.from_env({}) }
    assert_match(/PORT is not set/, error.message)
  end

  # SPEC §8.2: CONCUR_DB_POOL bounds all the workers together;
  # spec/POLICIES.md §6.3: worker i of P gets floor(POOL / P), plus one if
  # i < POOL % P, so that they hold all of it.
  def test_the_database_pool_is_divided_among_the_workers
    shares = ->(config) { Array.new(config.workers) { |i| config.db_pool_share(i) } }
    config = Concur::Config.from_env({ "PORT" => "1", "CONCUR_DB_POOL" => "16", "WEB_CONCURRENCY" => "3" })
    assert_equal [3, 16, [6, 5, 5]], [config.workers, config.db_pool, shares.(config)]
    config = Concur::Config.from_env({ "PORT" => "1", "CONCUR_DB_POOL" => "6", "WEB_CONCURRENCY" => "2" })
    assert_equal [2, [3, 3]], [config.workers, shares.(config)]
    config = Concur::Config.from_env({ "PORT" => "1", "CONCUR_DB_POOL" => "4", "CONCUR_CORES" => "4" })
    assert_equal [4, [1, 1, 1, 1]], [config.workers, shares.(config)]
    config = Concur::Config.from_env({ "PORT" => "1" })
    assert_equal [nil, 16, [16], 0.02], [config.db_url, config.db_pool, shares.(config), config.db_slow]
    (1..8).each do |pool|
      (1..pool).each do |n|
        assert_equal pool, Array.new(n) { |i| Concur::Config.pool_share(pool, n, i) }.sum, "#{pool} over #{n}"
      end
    end
  end
end
