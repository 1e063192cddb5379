# The {user} routes match only when the raw path has the prefix's trailing
# slash. The router matches a normalized copy of the path, without its trailing
# slash, which would make "/user/get" (no name, no slash) the route; SPEC §3.2
# says it is an unknown path, and "/user/get/" a route with an empty name.
module UserPath
  # The request target's path as the client sent it, before the router
  # normalized PATH_INFO; Rails keeps it in ORIGINAL_FULLPATH, with the query.
  def self.raw_path(request)
    request.original_fullpath.split("?", 2).first
  end

  # "/user/get/..." has the slash that ends its two-segment prefix.
  def self.matches?(request)
    raw_path(request).count("/") >= 3
  end
end
