# The hello-world routes of the wrk repository (SPEC §2).
class HelloController < ApplicationController
  def index
    render plain: "Hello, World!"
  end

  # Serialized from a Hash on every request.
  def json
    render json: { message: "Hello, World!" }
  end
end
