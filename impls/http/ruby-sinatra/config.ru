# frozen_string_literal: true

# Loaded once by the Puma master (--preload), before it forks the workers.
require_relative "lib/concur/app"

run Concur::App
