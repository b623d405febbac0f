"""The VTA backend core: an int8 GEMM accelerator's configuration, ISA, C simulator and the
lowering of conv2d_packed to its instruction stream.

Modules, in pipeline order: `config` (hardware presets), `isa` (instructions and their
binary layout), `dram` (DRAM images), `simulator` (the C simulator through ctypes),
`reference` (numpy semantics of each instruction), `conv2d_space` (workload, knobs, tiling),
`conv2d` (lowering and the numpy oracle of the op), `survey` (a quick measurement).
"""
