"""The graph IR for whole networks: named values with shapes and dtypes, nodes of graph ops,
constant params. Layer 6 of the design: the frontend imports into it, passes rewrite it,
task extraction and the network compiler read it."""

from tunefarm.graph.ir import OPS, Graph, GraphError, Node, Value

__all__ = ["Graph", "GraphError", "Node", "OPS", "Value"]
