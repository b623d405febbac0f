/* Semantics and cost of each VTA instruction: DMA loads and stores, GEMM and ALU.
 *
 * Every access is bounds-checked before it happens, so a program that overflows a buffer
 * stops with an error naming the instruction, the buffer and the index instead of computing
 * a wrong result. Integer arithmetic wraps through uint32 (no undefined behaviour): int8 x
 * int8 products accumulate in int32, ALU ops act on int32 and STORE narrows by truncation.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "vta_sim.h"

static const char *BUF_NAMES[N_BUFFERS] = {"uop", "inp", "wgt", "acc", "out"};
static const char *ALU_NAMES[4] = {"MIN", "MAX", "ADD", "SHR"};

int vta_fail(vta_result_t *r, int code, int32_t index, const char *fmt, ...) {
  va_list args;
  int len = snprintf(r->message, sizeof r->message, "instruction %d: ", (int)index);
  if (index < 0) len = 0;
  va_start(args, fmt);
  vsnprintf(r->message + len, sizeof r->message - (size_t)len, fmt, args);
  va_end(args);
  r->error = code;
  r->error_insn = index;
  return code;
}

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Cycles of a 2-D DMA: a fixed latency, then each row as one burst at bus width. */
static int64_t dma_cycles(const vta_config_t *c, int64_t rows, int64_t row_bytes) {
  int64_t beats = ceil_div(row_bytes, c->bus_bytes);
  return c->insn_cycles + c->dma_latency + rows * (c->dma_row_cycles + beats);
}

/* Checks that DRAM rows [base + i*stride, +x) for i < y, in elements of e bytes, lie inside
 * DRAM. Returns 0 or fills the error. */
static int check_dram(vta_machine_t *m, int32_t index, const char *what, int64_t base,
                      int64_t y, int64_t x, int64_t stride, int64_t e) {
  if (y == 0 || x == 0) return 0;
  int64_t last = base + (y - 1) * stride + x; /* one past the last element touched */
  if (base < 0 || stride < 0 || (__int128)last * e > m->dram_bytes)
    return vta_fail(m->result, VTA_DRAM_RANGE, index,
                    "%s DRAM bytes [%lld, %lld) outside DRAM of %lld bytes", what,
                    (long long)(base * e), (long long)(last * e), (long long)m->dram_bytes);
  return 0;
}

static int check_mem_fields(vta_machine_t *m, int32_t index, const int32_t *w, int npads) {
  for (int k = W_SRAM; k < W_YPAD0 + npads; k++)
    if (w[k] < 0)
      return vta_fail(m->result, VTA_BAD_INSN, index, "negative field in word %d (%d)", k,
                      (int)w[k]);
  return 0;
}

int64_t vta_exec_load(vta_machine_t *m, int32_t index, const int32_t *w) {
  const vta_config_t *c = m->cfg;
  int buf = w[W_BUFFER];
  if (buf < 0 || buf > BUF_ACC)
    return vta_fail(m->result, VTA_BAD_INSN, index, "LOAD into buffer %d (not uop, inp, "
                    "wgt or acc)", buf), -1;
  if (check_mem_fields(m, index, w, 4)) return -1;
  int64_t e = c->elem_bytes[buf];
  int64_t ysz = w[W_YSIZE], xsz = w[W_XSIZE], stride = w[W_XSTRIDE];
  int64_t yp0 = w[W_YPAD0], yp1 = w[W_YPAD1], xp0 = w[W_XPAD0], xp1 = w[W_XPAD1];
  int64_t rows = yp0 + ysz + yp1, cols = xp0 + xsz + xp1, base = w[W_SRAM];
  if (base + rows * cols > c->depth[buf])
    return vta_fail(m->result, VTA_SRAM_OVERFLOW, index,
                    "LOAD writes %s buffer elements [%lld, %lld) beyond its depth %d",
                    BUF_NAMES[buf], (long long)base, (long long)(base + rows * cols),
                    (int)c->depth[buf]), -1;
  if (check_dram(m, index, "LOAD reads", w[W_DRAM], ysz, xsz, stride, e)) return -1;
  if (c->functional) {
    uint8_t *dst = m->sram[buf] + base * e;
    for (int64_t r = 0; r < rows; r++, dst += cols * e) {
      int64_t y = r - yp0;
      if (y < 0 || y >= ysz) {
        memset(dst, 0, (size_t)(cols * e));
        continue;
      }
      memset(dst, 0, (size_t)(xp0 * e));
      memcpy(dst + xp0 * e, m->dram + (w[W_DRAM] + y * stride) * e, (size_t)(xsz * e));
      memset(dst + (xp0 + xsz) * e, 0, (size_t)(xp1 * e));
    }
  }
  m->result->dram_read_bytes += ysz * xsz * e;
  return dma_cycles(c, rows, cols * e);
}

int64_t vta_exec_store(vta_machine_t *m, int32_t index, const int32_t *w) {
  const vta_config_t *c = m->cfg;
  if (w[W_BUFFER] != BUF_OUT)
    return vta_fail(m->result, VTA_BAD_INSN, index, "STORE from buffer %d (only out)",
                    (int)w[W_BUFFER]), -1;
  if (w[W_YPAD0] | w[W_YPAD1] | w[W_XPAD0] | w[W_XPAD1])
    return vta_fail(m->result, VTA_BAD_INSN, index, "STORE with padding"), -1;
  if (check_mem_fields(m, index, w, 0)) return -1;
  int64_t e = c->elem_bytes[BUF_OUT], lanes = (int64_t)c->batch * c->block_out;
  int64_t ysz = w[W_YSIZE], xsz = w[W_XSIZE], stride = w[W_XSTRIDE], base = w[W_SRAM];
  if (base + ysz * xsz > c->depth[BUF_OUT])
    return vta_fail(m->result, VTA_SRAM_OVERFLOW, index,
                    "STORE reads out buffer elements [%lld, %lld) beyond its depth %d",
                    (long long)base, (long long)(base + ysz * xsz), (int)c->depth[BUF_OUT]), -1;
  if (check_dram(m, index, "STORE writes", w[W_DRAM], ysz, xsz, stride, e)) return -1;
  if (c->functional) {
    const int32_t *acc = (const int32_t *)m->sram[BUF_ACC] + base * lanes;
    for (int64_t y = 0; y < ysz; y++) {
      int8_t *dst = (int8_t *)m->dram + (w[W_DRAM] + y * stride) * e;
      for (int64_t k = 0; k < xsz * lanes; k++) dst[k] = (int8_t)(uint8_t)(uint32_t)*acc++;
    }
  }
  m->result->dram_write_bytes += ysz * xsz * e;
  return dma_cycles(c, ysz, xsz * e);
}

/* The loop fields GEMM and ALU share, checked once; uops are read from the uop buffer. */
typedef struct {
  int64_t bgn, end, iter_out, iter_in;
} loops_t;

static int check_loops(vta_machine_t *m, int32_t index, const int32_t *w, loops_t *l) {
  l->bgn = w[W_UOP_BGN];
  l->end = w[W_UOP_END];
  l->iter_out = w[W_ITER_OUT];
  l->iter_in = w[W_ITER_IN];
  if (l->iter_out < 0 || l->iter_in < 0 || l->bgn < 0 || l->end < l->bgn)
    return vta_fail(m->result, VTA_BAD_INSN, index, "bad micro-op loop (uops [%d, %d), "
                    "iterations %d x %d)", (int)l->bgn, (int)l->end, (int)l->iter_out,
                    (int)l->iter_in);
  if (l->end > m->cfg->depth[BUF_UOP])
    return vta_fail(m->result, VTA_SRAM_OVERFLOW, index, "micro-ops [%d, %d) beyond the uop "
                    "buffer's depth %d", (int)l->bgn, (int)l->end, (int)m->cfg->depth[BUF_UOP]);
  return 0;
}

static uint32_t read_uop(const vta_machine_t *m, int64_t u) {
  const uint8_t *p = m->sram[BUF_UOP] + u * 4;
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#define UOP_FIELD(word, name) \
  ((int64_t)((word) >> UOP_##name##_SHIFT & ((1u << UOP_##name##_BITS) - 1)))

static int oob(vta_machine_t *m, int32_t index, const char *op, int buf, int64_t at, int64_t u,
               int64_t i, int64_t j) {
  return vta_fail(m->result, VTA_SRAM_OVERFLOW, index,
                  "%s accesses %s buffer element %lld (micro-op %lld, iteration (%lld, %lld)) "
                  "beyond its depth %d", op, BUF_NAMES[buf], (long long)at, (long long)u,
                  (long long)i, (long long)j, (int)m->cfg->depth[buf]);
}

static void gemm_block(const vta_config_t *c, int32_t *acc, const int8_t *inp,
                       const int8_t *wgt) {
  const int bi = c->block_in, bo = c->block_out;
  for (int b = 0; b < c->batch; b++)
    for (int o = 0; o < bo; o++) {
      int32_t sum = 0;
      for (int k = 0; k < bi; k++) sum += (int32_t)inp[b * bi + k] * (int32_t)wgt[o * bi + k];
      acc[b * bo + o] = (int32_t)((uint32_t)acc[b * bo + o] + (uint32_t)sum);
    }
}

int64_t vta_exec_gemm(vta_machine_t *m, int32_t index, const int32_t *w) {
  const vta_config_t *c = m->cfg;
  loops_t l;
  if (check_loops(m, index, w, &l)) return -1;
  int reset = (w[W_FLAGS] & F_RESET) != 0;
  int64_t lanes_acc = (int64_t)c->batch * c->block_out, lanes_inp = (int64_t)c->batch * c->block_in;
  int64_t lanes_wgt = (int64_t)c->block_out * c->block_in;
  for (int64_t i = 0; i < l.iter_out; i++)
    for (int64_t j = 0; j < l.iter_in; j++)
      for (int64_t u = l.bgn; u < l.end; u++) {
        uint32_t uop = read_uop(m, u);
        int64_t d = UOP_FIELD(uop, ACC) + i * w[W_DST_OUT] + j * w[W_DST_IN];
        int64_t s = UOP_FIELD(uop, INP) + i * w[W_SRC_OUT] + j * w[W_SRC_IN];
        int64_t g = UOP_FIELD(uop, WGT) + i * w[W_WGT_OUT] + j * w[W_WGT_IN];
        if (d < 0 || d >= c->depth[BUF_ACC]) return oob(m, index, "GEMM", BUF_ACC, d, u, i, j), -1;
        int32_t *acc = (int32_t *)m->sram[BUF_ACC] + d * lanes_acc;
        if (reset) {
          if (c->functional) memset(acc, 0, (size_t)lanes_acc * 4);
          continue;
        }
        if (s < 0 || s >= c->depth[BUF_INP]) return oob(m, index, "GEMM", BUF_INP, s, u, i, j), -1;
        if (g < 0 || g >= c->depth[BUF_WGT]) return oob(m, index, "GEMM", BUF_WGT, g, u, i, j), -1;
        if (c->functional)
          gemm_block(c, acc, (const int8_t *)m->sram[BUF_INP] + s * lanes_inp,
                     (const int8_t *)m->sram[BUF_WGT] + g * lanes_wgt);
      }
  int64_t execs = l.iter_out * l.iter_in * (l.end - l.bgn);
  if (!reset) m->result->gemm_uops += execs;
  return c->insn_cycles + execs * c->gemm_cycles_per_uop;
}

static int32_t alu_apply(int op, int32_t a, int32_t b) {
  switch (op) {
    case ALU_MIN: return a < b ? a : b;
    case ALU_MAX: return a > b ? a : b;
    case ALU_ADD: return (int32_t)((uint32_t)a + (uint32_t)b);
    default: /* ALU_SHR: arithmetic right shift; a negative amount shifts left */
      if (b >= 0) return a >> (b > 31 ? 31 : b);
      return (int32_t)((uint32_t)a << (b < -31 ? 31 : -b));
  }
}

int64_t vta_exec_alu(vta_machine_t *m, int32_t index, const int32_t *w) {
  const vta_config_t *c = m->cfg;
  loops_t l;
  int op = w[W_ALUOP], use_imm = (w[W_FLAGS] & F_USE_IMM) != 0;
  if (op < ALU_MIN || op > ALU_SHR)
    return vta_fail(m->result, VTA_BAD_INSN, index, "unknown ALU op %d", op), -1;
  if (check_loops(m, index, w, &l)) return -1;
  int64_t lanes = (int64_t)c->batch * c->block_out;
  int32_t *accs = (int32_t *)m->sram[BUF_ACC];
  for (int64_t i = 0; i < l.iter_out; i++)
    for (int64_t j = 0; j < l.iter_in; j++)
      for (int64_t u = l.bgn; u < l.end; u++) {
        uint32_t uop = read_uop(m, u);
        int64_t d = UOP_FIELD(uop, ACC) + i * w[W_DST_OUT] + j * w[W_DST_IN];
        int64_t s = UOP_FIELD(uop, INP) + i * w[W_SRC_OUT] + j * w[W_SRC_IN];
        if (d < 0 || d >= c->depth[BUF_ACC])
          return oob(m, index, ALU_NAMES[op], BUF_ACC, d, u, i, j), -1;
        if (!use_imm && (s < 0 || s >= c->depth[BUF_ACC]))
          return oob(m, index, ALU_NAMES[op], BUF_ACC, s, u, i, j), -1;
        if (!c->functional) continue;
        int32_t *dst = accs + d * lanes;
        const int32_t *src = accs + s * lanes;
        for (int64_t k = 0; k < lanes; k++)
          dst[k] = alu_apply(op, dst[k], use_imm ? w[W_IMM] : src[k]);
      }
  int64_t execs = l.iter_out * l.iter_in * (l.end - l.bgn);
  m->result->alu_uops += execs;
  return c->insn_cycles + execs * c->alu_cycles_per_vector;
}
