"""Layer 3, target-independent lowering: a scheduled compute DAG to a loop-nest IR (the
emitters that turn it into code live in each backend)."""
