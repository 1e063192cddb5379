# bcrypt passwords (SPEC §2). BCrypt hashes in C without the global VM lock, so
# other threads of the worker serve requests meanwhile.
class PasswordsController < ApplicationController
  # spec/POLICIES.md §2: one hash in progress per process (one process per
  # core). Without the lock every Puma thread of the process could hash at
  # once, time-slicing its core; the others queue on the Mutex. Created when
  # the master loads the class, before Puma forks: each worker has its own.
  HASHING = Mutex.new

  before_action :require_user_name

  def create
    given = password
    digest = bcrypt { BCrypt::Password.create(given, cost: bcrypt_cost) }
    store.write(:passwords, user_name, digest.to_s)
    render plain: "OK"
  end

  def verify
    given = password
    digest = store.read(:passwords, user_name)
    if digest.nil?
      # Hash anyway, so that an unknown user takes as long as a real check
      # (the thesis' Listing 24).
      bcrypt { BCrypt::Password.create(given, cost: bcrypt_cost) }
      refuse :not_found, "no password set for #{user_name}"
    end
    refuse :forbidden, "wrong password" unless bcrypt { BCrypt::Password.new(digest) == given }
    render plain: "OK"
  end

  private

  def bcrypt(&block)
    HASHING.synchronize(&block)
  end

  def bcrypt_cost
    Rails.configuration.x.bcrypt_cost
  end

  # bcrypt reads at most 72 bytes and stops at a NUL; the contract refuses both
  # rather than let runtimes differ (SPEC §3.6).
  def password
    body = json_body
    given = body["password"] if body.is_a?(Hash)
    refuse :bad_request, 'body must be a JSON object with a string member "password"' unless given.is_a?(String)
    refuse :bad_request, "password longer than 72 bytes" if given.bytesize > 72
    refuse :bad_request, "password contains U+0000" if given.include?("\0")
    given
  end
end
