# What every database route (SPEC §8) shares: a 503 with a one-line reason
# when the database cannot be reached or used (§8.4), and `with_database`,
# which holds one connection for all of an action's statements behind a
# ConnectionPermits permit, with no query cache, and gives it back before
# the action renders.
#
# Rails caches the result of each SQL statement for the rest of the request
# (ActiveRecord::QueryCache): /queries would read a row drawn twice only
# once, and SPEC §8.3 asks for a statement per row and no cache anywhere.
module DatabaseRoute
  extend ActiveSupport::Concern

  included do
    before_action :require_database
    rescue_from ActiveRecord::ActiveRecordError, PG::Error do |error|
      render plain: "database unavailable: #{error.message.split.join(' ')}", status: :service_unavailable
    end
  end

  private

  def require_database
    return if Rails.configuration.x.db_url

    render plain: "database unavailable: CONCUR_DB_URL is not set", status: :service_unavailable
  end

  # Runs the block's statements on one connection and returns its value
  # (the rows, loaded): the permit first, then the connection, given back
  # before the permit and before the action renders, so no connection is
  # held while the JSON or the page is made.
  def with_database(&block)
    ConnectionPermits.instance.hold do
      ActiveRecord::Base.connection_pool.with_connection { |connection| connection.uncached(&block) }
    end
  end
end
