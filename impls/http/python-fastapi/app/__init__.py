"""The Concur HTTP workload (spec/SPEC.md) as a FastAPI application served by Uvicorn."""
