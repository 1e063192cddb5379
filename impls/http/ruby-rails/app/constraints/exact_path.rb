# The database routes match only the path as written. The router matches a
# normalized copy of the path, without a trailing slash, so "/slowdb/" would
# be /slowdb; SPEC §8.4 says a longer path is an unknown one (404).
module ExactPath
  def self.matches?(request)
    raw = UserPath.raw_path(request)
    ActionDispatch::Journey::Router::Utils.normalize_path(raw) == raw
  end
end
