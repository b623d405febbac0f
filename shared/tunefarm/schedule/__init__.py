"""Layer 2, schedules: steps, their application to a compute DAG, config spaces and the
template base class (see docs/architecture.md)."""
