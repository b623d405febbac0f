"""The network compiler: an optimised graph plus tuning records -> an execution plan -> one
artifact file (layer 7's input). See `network.compile_graph`."""

from tunefarm.compiler.network import CompiledNetwork, CompileError, TaskChoice, compile_graph

__all__ = ["CompileError", "CompiledNetwork", "TaskChoice", "compile_graph"]
