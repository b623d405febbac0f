/* A cycle-level simulator of a VTA-style int8 accelerator.
 *
 * The instruction record layout is stated once, in isa.py; the word indices below mirror it.
 * Python fills vta_config_t from a VTAConfig and reads vta_result_t back through ctypes, so
 * both structs are plain int32/int64 fields in a fixed order (simulator.py mirrors them).
 */
#ifndef TUNEFARM_VTA_SIM_H
#define TUNEFARM_VTA_SIM_H

#include <stdint.h>

#define VTA_WORDS 16
enum { OP_LOAD = 0, OP_STORE = 1, OP_GEMM = 2, OP_ALU = 3, OP_FINISH = 4 };
enum { BUF_UOP = 0, BUF_INP = 1, BUF_WGT = 2, BUF_ACC = 3, BUF_OUT = 4, N_BUFFERS = 5 };
enum { ALU_MIN = 0, ALU_MAX = 1, ALU_ADD = 2, ALU_SHR = 3 };
enum { MOD_LOAD = 0, MOD_COMPUTE = 1, MOD_STORE = 2, N_MODULES = 3 };
enum { F_POP_PREV = 1, F_POP_NEXT = 2, F_PUSH_PREV = 4, F_PUSH_NEXT = 8, F_RESET = 16,
       F_USE_IMM = 32 };
/* word indices of a record */
enum { W_OPCODE = 0, W_FLAGS = 1, W_BUFFER = 2, W_SRAM = 3, W_DRAM = 4, W_YSIZE = 5,
       W_XSIZE = 6, W_XSTRIDE = 7, W_YPAD0 = 8, W_YPAD1 = 9, W_XPAD0 = 10, W_XPAD1 = 11 };
enum { W_ALUOP = 2, W_UOP_BGN = 3, W_UOP_END = 4, W_ITER_OUT = 5, W_ITER_IN = 6,
       W_DST_OUT = 7, W_DST_IN = 8, W_SRC_OUT = 9, W_SRC_IN = 10, W_WGT_OUT = 11,
       W_WGT_IN = 12, W_IMM = 13 };
/* micro-op fields: bit offset and width */
#define UOP_ACC_SHIFT 0
#define UOP_ACC_BITS 11
#define UOP_INP_SHIFT 11
#define UOP_INP_BITS 11
#define UOP_WGT_SHIFT 22
#define UOP_WGT_BITS 10

/* error codes: simulator.py's SimError mirrors them */
enum { VTA_OK = 0, VTA_BAD_INSN = 1, VTA_SRAM_OVERFLOW = 2, VTA_DRAM_RANGE = 3,
       VTA_DEADLOCK = 4, VTA_NO_FINISH = 5, VTA_NO_MEMORY = 6 };

typedef struct {
  int32_t batch, block_in, block_out;
  int32_t depth[N_BUFFERS];      /* elements per buffer */
  int32_t elem_bytes[N_BUFFERS]; /* bytes per element */
  int32_t bus_bytes;
  int32_t dma_latency, dma_row_cycles, insn_cycles, gemm_cycles_per_uop, alu_cycles_per_vector;
  int32_t functional; /* 0: tokens, bounds and cycles only; data is neither moved nor computed */
} vta_config_t;

typedef struct {
  int64_t cycles;              /* when the last module finished */
  int64_t busy[N_MODULES];     /* cycles each module spent executing instructions */
  int64_t insns[N_MODULES];    /* instructions each module executed */
  int64_t gemm_uops;           /* GEMM micro-op executions that multiplied (not resets) */
  int64_t alu_uops;            /* ALU micro-op executions */
  int64_t dram_read_bytes, dram_write_bytes;
  int32_t error;               /* VTA_OK or an error code */
  int32_t error_insn;          /* instruction index the error is about, -1 if none */
  char message[512];
} vta_result_t;

/* Runs n instruction records on dram (modified in place by STOREs). If trace is not NULL it
 * receives start and end cycles of every instruction (2 * n int64, -1 for unexecuted ones).
 * If dump is not NULL, dump[b] (for b < BUF_OUT, each NULL or depth * elem_bytes bytes)
 * receives the final contents of buffer b. Returns result->error. */
int vta_sim_run(const vta_config_t *cfg, const int32_t *insns, int32_t n, uint8_t *dram,
                int64_t dram_bytes, int64_t *trace, uint8_t *const *dump, vta_result_t *result);

/* ---- internal: shared by vta_sim.c (scheduling) and vta_ops.c (semantics) ---- */
typedef struct {
  const vta_config_t *cfg;
  uint8_t *sram[N_BUFFERS]; /* OUT has no storage: STORE narrows the accumulator */
  uint8_t *dram;
  int64_t dram_bytes;
  vta_result_t *result;
} vta_machine_t;

/* Each executes one instruction's semantics and returns its duration in cycles, or -1 after
 * filling result->error and result->message. */
int64_t vta_exec_load(vta_machine_t *m, int32_t index, const int32_t *w);
int64_t vta_exec_store(vta_machine_t *m, int32_t index, const int32_t *w);
int64_t vta_exec_gemm(vta_machine_t *m, int32_t index, const int32_t *w);
int64_t vta_exec_alu(vta_machine_t *m, int32_t index, const int32_t *w);
int vta_fail(vta_result_t *r, int code, int32_t index, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
