require "store"

# The stores of SPEC §2. With Puma in cluster mode, config/puma.rb serves this
# object from the master over DRb and gives each worker a client for it.
Rails.application.config.x.store = Store.new
