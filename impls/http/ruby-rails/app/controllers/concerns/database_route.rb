# What every database route (SPEC §8) shares: a 503 with a one-line reason
# when the database cannot be reached or used (§8.4), one connection held for
# the whole action behind a ConnectionPermits permit, and no query cache.
#
# Rails caches the result of each SQL statement for the rest of the request
# (ActiveRecord::QueryCache): /queries would read a row drawn twice only
# once, and SPEC §8.3 asks for a statement per row and no cache anywhere.
module DatabaseRoute
  extend ActiveSupport::Concern

  included do
    before_action :require_database
    around_action :with_one_connection
    around_action :without_query_cache
    rescue_from ActiveRecord::ActiveRecordError, PG::Error do |error|
      render plain: "database unavailable: #{error.message.split.join(' ')}", status: :service_unavailable
    end
  end

  private

  def require_database
    return if Rails.configuration.x.db_url

    render plain: "database unavailable: CONCUR_DB_URL is not set", status: :service_unavailable
  end

  # The permit first, then the connection, given back before the permit.
  def with_one_connection(&action)
    ConnectionPermits.instance.hold { ActiveRecord::Base.connection_pool.with_connection { action.call } }
  end

  def without_query_cache(&action)
    ActiveRecord::Base.uncached(&action)
  end
end
