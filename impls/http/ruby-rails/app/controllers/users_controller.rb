# The user store (SPEC §2): the body is parsed into Ruby's JSON value, the
# value is stored, and every get serializes it anew.
class UsersController < ApplicationController
  before_action :require_user_name

  def update
    value = json_body
    refuse :bad_request, "body must be a JSON object" unless value.is_a?(Hash)
    store.write(:users, user_name, value)
    render plain: "OK"
  end

  def show
    value = store.read(:users, user_name)
    refuse :not_found, "no user #{user_name}" if value.nil?
    render json: value
  end
end
