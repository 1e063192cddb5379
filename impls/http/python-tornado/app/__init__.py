"""The Concur HTTP workload (spec/SPEC.md) as a Tornado application."""
