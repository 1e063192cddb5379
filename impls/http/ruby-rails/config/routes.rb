Rails.application.routes.draw do
  scope format: false do
    # SPEC §2
    get "/", to: "hello#index"
    get "json", to: "hello#json"
    get "page", to: "pages#show"
    get "longPoll", to: "long_polls#show"

    # {user} is the rest of the path, possibly empty or with slashes: the
    # controllers check the raw name (400, SPEC §3.4) after the method.
    {
      "password/set" => [:post, "passwords#create"],
      "password/verify" => [:post, "passwords#verify"],
      "user/set" => [:post, "users#update"],
      "user/get" => [:get, "users#show"],
    }.each do |prefix, (verb, action)|
      constraints UserPath.new(prefix) do
        match "#{prefix}/(*user)", to: action, via: verb
        match "#{prefix}/(*user)", to: "errors#method_not_allowed", via: :all, defaults: { allow: verb.to_s.upcase }
      end
    end

    # A known path with another method (SPEC §3.3), then every other path (§3.2).
    match "/", "json", "page", "longPoll", to: "errors#method_not_allowed", via: :all, defaults: { allow: "GET" }
    match "*path", to: "errors#not_found", via: :all
  end
end
