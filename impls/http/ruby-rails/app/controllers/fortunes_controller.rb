# /fortunes (SPEC §8.3): an HTML page, so an ActionController::Base
# controller, the kind a Rails application renders views with, and an ERB
# view (app/views/fortunes/index.html.erb) in which Rails escapes every
# message, rendered once the connection is back in the pool.
class FortunesController < ActionController::Base
  include DatabaseRoute

  def index
    @fortunes = with_database { Fortune.page }
  end
end
