# The routes of SPEC §2. A path no route has is Rails' own routing error, and
# the exceptions app (lib/plain_exceptions.rb) answers it: 404, or 405 with
# Allow when the path has a route for another method (SPEC §3.2-3.3).
Rails.application.routes.draw do
  scope format: false do
    root "hello#index"
    get "json", to: "hello#json"
    get "page", to: "pages#show"
    get "longPoll", to: "long_polls#show"

    # The database routes of SPEC §8, only at their exact paths (ExactPath).
    constraints ExactPath do
      get "db", to: "worlds#show"
      get "queries", to: "worlds#index"
      get "updates", to: "worlds#update"
      get "fortunes", to: "fortunes#index"
      get "slowdb", to: "worlds#slow"
    end

    # {user} is the rest of the raw path, possibly empty or with slashes: the
    # controllers check it (400, SPEC §3.4) after the router has checked the
    # method. UserPath keeps "/user/get" (no slash) an unknown path.
    constraints UserPath do
      post "password/set/(*user)", to: "passwords#create"
      post "password/verify/(*user)", to: "passwords#verify"
      post "user/set/(*user)", to: "users#update"
      get "user/get/(*user)", to: "users#show"
    end

    # SPEC §9: only in a server started with CONCUR_FAULTS=1.
    if Rails.configuration.x.faults
      get "fault/panic", to: "faults#panic"
      get "fault/spin", to: "faults#spin"
    end
  end
end
