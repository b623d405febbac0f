/* Scheduling of the three VTA modules: dispatch, dependency tokens and the cycle model.
 *
 * The fetch unit dispatches instructions to the LOAD, COMPUTE and STORE queues in program
 * order. Each module has its own clock and runs its queue in order; an instruction starts when
 * its module is free and every token it pops has been pushed, at the pushing instruction's end
 * time, so the modules overlap exactly as far as the tokens allow. The simulation is
 * event-driven: among the modules whose head instruction can start, the earliest start runs
 * next, so data effects happen in simulated-time order. When no module can start and some
 * queue is not empty, the program has deadlocked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vta_sim.h"

static const char *MOD_NAMES[N_MODULES] = {"load", "compute", "store"};
enum { Q_L2G = 0, Q_G2L = 1, Q_G2S = 2, Q_S2G = 3, N_QUEUES = 4 };
static const char *Q_NAMES[N_QUEUES] = {"load->compute", "compute->load", "compute->store",
                                        "store->compute"};
/* token queue a module uses for each flag (-1: the module has no such neighbour) */
static const int POP_PREV[N_MODULES] = {-1, Q_L2G, Q_G2S};
static const int POP_NEXT[N_MODULES] = {Q_G2L, Q_S2G, -1};
static const int PUSH_PREV[N_MODULES] = {-1, Q_G2L, Q_S2G};
static const int PUSH_NEXT[N_MODULES] = {Q_L2G, Q_G2S, -1};

typedef struct {
  int64_t *time; /* push times of the tokens, a FIFO */
  int64_t head, tail;
} tokens_t;

static int module_of(const int32_t *w) {
  if (w[W_OPCODE] == OP_LOAD)
    return (w[W_BUFFER] == BUF_INP || w[W_BUFFER] == BUF_WGT) ? MOD_LOAD : MOD_COMPUTE;
  return w[W_OPCODE] == OP_STORE ? MOD_STORE : MOD_COMPUTE;
}

/* Opcodes, FINISH placement and which dependency flags each module may use. */
static int validate(const int32_t *insns, int32_t n, vta_result_t *r) {
  if (n <= 0 || insns[(int64_t)(n - 1) * VTA_WORDS + W_OPCODE] != OP_FINISH)
    return vta_fail(r, VTA_NO_FINISH, n - 1, "the program does not end with FINISH");
  for (int32_t i = 0; i < n; i++) {
    const int32_t *w = insns + (int64_t)i * VTA_WORDS;
    if (w[W_OPCODE] < OP_LOAD || w[W_OPCODE] > OP_FINISH)
      return vta_fail(r, VTA_BAD_INSN, i, "unknown opcode %d", (int)w[W_OPCODE]);
    if (w[W_OPCODE] == OP_FINISH && i != n - 1)
      return vta_fail(r, VTA_NO_FINISH, i, "FINISH before the end of the program");
    int m = module_of(w), f = w[W_FLAGS];
    if (((f & F_POP_PREV) || (f & F_PUSH_PREV)) && POP_PREV[m] < 0)
      return vta_fail(r, VTA_BAD_INSN, i, "%s module has no previous module to sync with",
                      MOD_NAMES[m]);
    if (((f & F_POP_NEXT) || (f & F_PUSH_NEXT)) && POP_NEXT[m] < 0)
      return vta_fail(r, VTA_BAD_INSN, i, "%s module has no next module to sync with",
                      MOD_NAMES[m]);
  }
  return VTA_OK;
}

/* The queues an instruction pops, as a small list (at most two). */
static int pops_of(int m, int flags, int q[2]) {
  int k = 0;
  if (flags & F_POP_PREV) q[k++] = POP_PREV[m];
  if (flags & F_POP_NEXT) q[k++] = POP_NEXT[m];
  return k;
}

static int64_t execute(vta_machine_t *mach, int32_t index, const int32_t *w) {
  switch (w[W_OPCODE]) {
    case OP_LOAD: return vta_exec_load(mach, index, w);
    case OP_STORE: return vta_exec_store(mach, index, w);
    case OP_GEMM: return vta_exec_gemm(mach, index, w);
    case OP_ALU: return vta_exec_alu(mach, index, w);
    default: return mach->cfg->insn_cycles; /* FINISH */
  }
}

static int deadlock(vta_result_t *r, const int32_t *insns, int32_t *const queue[N_MODULES],
                    const int32_t pos[N_MODULES], const int32_t len[N_MODULES],
                    const tokens_t tok[N_QUEUES]) {
  char text[400] = "deadlock:";
  int32_t first = -1;
  for (int m = 0; m < N_MODULES; m++) {
    size_t used = strlen(text);
    if (pos[m] >= len[m]) {
      snprintf(text + used, sizeof text - used, " %s module done;", MOD_NAMES[m]);
      continue;
    }
    int32_t i = queue[m][pos[m]];
    int q[2], k = pops_of(m, insns[(int64_t)i * VTA_WORDS + W_FLAGS], q);
    const char *waits = "?";
    for (int j = 0; j < k; j++)
      if (tok[q[j]].head == tok[q[j]].tail) waits = Q_NAMES[q[j]];
    snprintf(text + used, sizeof text - used, " %s module blocked at instruction %d "
             "(waits for a %s token);", MOD_NAMES[m], (int)i, waits);
    if (first < 0 || i < first) first = i;
  }
  text[strlen(text) - 1] = '\0';
  vta_fail(r, VTA_DEADLOCK, -1, "%s", text);
  r->error_insn = first;
  return VTA_DEADLOCK;
}

/* Runs the queues to completion; returns an error code (the result holds the message). */
static int schedule(vta_machine_t *mach, const int32_t *insns, int32_t *const queue[N_MODULES],
                    const int32_t len[N_MODULES], tokens_t tok[N_QUEUES], int64_t *trace) {
  vta_result_t *r = mach->result;
  int32_t pos[N_MODULES] = {0, 0, 0};
  int64_t clock[N_MODULES] = {0, 0, 0};
  for (;;) {
    int best = -1;
    int64_t best_start = 0;
    for (int m = 0; m < N_MODULES; m++) {
      if (pos[m] >= len[m]) continue;
      const int32_t *w = insns + (int64_t)queue[m][pos[m]] * VTA_WORDS;
      int q[2], k = pops_of(m, w[W_FLAGS], q), ready = 1;
      int64_t start = clock[m];
      for (int j = 0; j < k; j++) {
        if (tok[q[j]].head == tok[q[j]].tail) ready = 0;
        else if (tok[q[j]].time[tok[q[j]].head] > start) start = tok[q[j]].time[tok[q[j]].head];
      }
      if (ready && (best < 0 || start < best_start)) best = m, best_start = start;
    }
    if (best < 0) {
      if (pos[0] >= len[0] && pos[1] >= len[1] && pos[2] >= len[2]) break;
      return deadlock(r, insns, queue, pos, len, tok);
    }
    int32_t index = queue[best][pos[best]++];
    const int32_t *w = insns + (int64_t)index * VTA_WORDS;
    int q[2], k = pops_of(best, w[W_FLAGS], q);
    for (int j = 0; j < k; j++) tok[q[j]].head++;
    int64_t duration = execute(mach, index, w);
    if (duration < 0) return r->error;
    int64_t end = best_start + duration;
    if (w[W_FLAGS] & F_PUSH_PREV) tok[PUSH_PREV[best]].time[tok[PUSH_PREV[best]].tail++] = end;
    if (w[W_FLAGS] & F_PUSH_NEXT) tok[PUSH_NEXT[best]].time[tok[PUSH_NEXT[best]].tail++] = end;
    clock[best] = end;
    r->busy[best] += duration;
    r->insns[best]++;
    if (end > r->cycles) r->cycles = end;
    if (trace) trace[2 * (int64_t)index] = best_start, trace[2 * (int64_t)index + 1] = end;
  }
  return VTA_OK;
}

int vta_sim_run(const vta_config_t *cfg, const int32_t *insns, int32_t n, uint8_t *dram,
                int64_t dram_bytes, int64_t *trace, uint8_t *const *dump, vta_result_t *result) {
  memset(result, 0, sizeof *result);
  result->error_insn = -1;
  if (trace)
    for (int64_t i = 0; i < 2 * (int64_t)n; i++) trace[i] = -1;
  if (validate(insns, n, result)) return result->error;
  vta_machine_t mach = {cfg, {0}, dram, dram_bytes, result};
  int32_t *order = malloc(sizeof(int32_t) * (size_t)n * N_MODULES);
  int64_t *times = malloc(sizeof(int64_t) * (size_t)n * N_QUEUES);
  int ok = order && times;
  for (int b = 0; b < BUF_OUT && ok; b++) {
    mach.sram[b] = calloc((size_t)cfg->depth[b], (size_t)cfg->elem_bytes[b]);
    ok = mach.sram[b] != NULL;
  }
  if (ok) {
    int32_t *queue[N_MODULES], len[N_MODULES] = {0, 0, 0};
    tokens_t tok[N_QUEUES];
    for (int m = 0; m < N_MODULES; m++) queue[m] = order + (int64_t)m * n;
    for (int q = 0; q < N_QUEUES; q++) tok[q] = (tokens_t){times + (int64_t)q * n, 0, 0};
    for (int32_t i = 0; i < n; i++) {
      int m = module_of(insns + (int64_t)i * VTA_WORDS);
      queue[m][len[m]++] = i;
    }
    schedule(&mach, insns, queue, len, tok, trace);
  } else {
    vta_fail(result, VTA_NO_MEMORY, -1, "out of host memory for the simulator's buffers");
  }
  for (int b = 0; b < BUF_OUT; b++) {
    if (dump && dump[b] && mach.sram[b])
      memcpy(dump[b], mach.sram[b], (size_t)cfg->depth[b] * (size_t)cfg->elem_bytes[b]);
    free(mach.sram[b]);
  }
  free(order);
  free(times);
  return result->error;
}
