; VTA program for config 'default': 156 instructions, 140 micro-ops
; knobs {"tile_b": [1, 1], "tile_h": [7, 1], "tile_w": [1, 7], "tile_ci": [2, 1], "tile_co": [2, 1], "oc_nthread": 2, "h_nthread": 1}
; dram data    @0        |i1 [1, 2, 14, 14, 1, 16]
; dram weight  @6400     |i1 [2, 2, 3, 3, 16, 16]
; dram uops    @15616    <u4 [140]
; dram output  @16384    |i1 [1, 2, 7, 7, 1, 16]
    0  LOAD   buffer=uop sram_base=0 dram_base=3904 y_size=1 x_size=140 x_stride=0
    1  GEMM   uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 reset=1
    2  GEMM   uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 reset=1
    3  LOAD   buffer=inp sram_base=0 dram_base=0 y_size=2 x_size=14 x_stride=14 y_pad0=1 x_pad0=1
    4  LOAD   buffer=wgt sram_base=0 dram_base=25 y_size=1 x_size=9 x_stride=18 push_next
    5  LOAD   buffer=inp sram_base=45 dram_base=0 y_size=2 x_size=14 x_stride=14 y_pad0=1 x_pad0=1
    6  LOAD   buffer=wgt sram_base=9 dram_base=43 y_size=1 x_size=9 x_stride=18 push_next
    7  GEMM   uop_begin=0 uop_end=63 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev push_prev
    8  GEMM   uop_begin=70 uop_end=133 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev push_prev
    9  LOAD   buffer=inp sram_base=0 dram_base=196 y_size=2 x_size=14 x_stride=14 y_pad0=1 x_pad0=1 pop_next
   10  LOAD   buffer=wgt sram_base=0 dram_base=34 y_size=1 x_size=9 x_stride=18 push_next
   11  LOAD   buffer=inp sram_base=45 dram_base=196 y_size=2 x_size=14 x_stride=14 y_pad0=1 x_pad0=1 pop_next
   12  LOAD   buffer=wgt sram_base=9 dram_base=52 y_size=1 x_size=9 x_stride=18 push_next
   13  GEMM   uop_begin=0 uop_end=63 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev push_prev
   14  GEMM   uop_begin=70 uop_end=133 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev push_prev
   15  SHR    uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=8
   16  MIN    uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=127
   17  MAX    uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=0 push_next
   18  SHR    uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=8
   19  MIN    uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=127
   20  MAX    uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=0 push_next
   21  STORE  sram_base=0 dram_base=1024 y_size=1 x_size=7 x_stride=7 buffer=out pop_prev push_prev
   22  STORE  sram_base=7 dram_base=1073 y_size=1 x_size=7 x_stride=7 buffer=out pop_prev push_prev
   23  GEMM   uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 reset=1 pop_next
   24  GEMM   uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 reset=1 pop_next
   25  LOAD   buffer=inp sram_base=0 dram_base=14 y_size=3 x_size=14 x_stride=14 x_pad0=1 pop_next
   26  LOAD   buffer=wgt sram_base=0 dram_base=25 y_size=1 x_size=9 x_stride=18 push_next
   27  LOAD   buffer=inp sram_base=45 dram_base=14 y_size=3 x_size=14 x_stride=14 x_pad0=1 pop_next
   28  LOAD   buffer=wgt sram_base=9 dram_base=43 y_size=1 x_size=9 x_stride=18 push_next
   29  GEMM   uop_begin=0 uop_end=63 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev push_prev
   30  GEMM   uop_begin=70 uop_end=133 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev push_prev
   31  LOAD   buffer=inp sram_base=0 dram_base=210 y_size=3 x_size=14 x_stride=14 x_pad0=1 pop_next
   32  LOAD   buffer=wgt sram_base=0 dram_base=34 y_size=1 x_size=9 x_stride=18 push_next
   33  LOAD   buffer=inp sram_base=45 dram_base=210 y_size=3 x_size=14 x_stride=14 x_pad0=1 pop_next
   34  LOAD   buffer=wgt sram_base=9 dram_base=52 y_size=1 x_size=9 x_stride=18 push_next
   35  GEMM   uop_begin=0 uop_end=63 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev push_prev
   36  GEMM   uop_begin=70 uop_end=133 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev push_prev
   37  SHR    uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=8
   38  MIN    uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=127
   39  MAX    uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=0 push_next
   40  SHR    uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=8
   41  MIN    uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=127
   42  MAX    uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=0 push_next
   43  STORE  sram_base=0 dram_base=1031 y_size=1 x_size=7 x_stride=7 buffer=out pop_prev push_prev
   44  STORE  sram_base=7 dram_base=1080 y_size=1 x_size=7 x_stride=7 buffer=out pop_prev push_prev
   45  GEMM   uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 reset=1 pop_next
   46  GEMM   uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 reset=1 pop_next
   47  LOAD   buffer=inp sram_base=0 dram_base=42 y_size=3 x_size=14 x_stride=14 x_pad0=1 pop_next
   48  LOAD   buffer=wgt sram_base=0 dram_base=25 y_size=1 x_size=9 x_stride=18 push_next
   49  LOAD   buffer=inp sram_base=45 dram_base=42 y_size=3 x_size=14 x_stride=14 x_pad0=1 pop_next
   50  LOAD   buffer=wgt sram_base=9 dram_base=43 y_size=1 x_size=9 x_stride=18 push_next
   51  GEMM   uop_begin=0 uop_end=63 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev push_prev
   52  GEMM   uop_begin=70 uop_end=133 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev push_prev
   53  LOAD   buffer=inp sram_base=0 dram_base=238 y_size=3 x_size=14 x_stride=14 x_pad0=1 pop_next
   54  LOAD   buffer=wgt sram_base=0 dram_base=34 y_size=1 x_size=9 x_stride=18 push_next
   55  LOAD   buffer=inp sram_base=45 dram_base=238 y_size=3 x_size=14 x_stride=14 x_pad0=1 pop_next
   56  LOAD   buffer=wgt sram_base=9 dram_base=52 y_size=1 x_size=9 x_stride=18 push_next
   57  GEMM   uop_begin=0 uop_end=63 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev push_prev
   58  GEMM   uop_begin=70 uop_end=133 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev push_prev
   59  SHR    uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=8
   60  MIN    uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=127
   61  MAX    uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=0 push_next
   62  SHR    uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=8
   63  MIN    uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=127
   64  MAX    uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=0 push_next
   65  STORE  sram_base=0 dram_base=1038 y_size=1 x_size=7 x_stride=7 buffer=out pop_prev push_prev
   66  STORE  sram_base=7 dram_base=1087 y_size=1 x_size=7 x_stride=7 buffer=out pop_prev push_prev
   67  GEMM   uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 reset=1 pop_next
   68  GEMM   uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 reset=1 pop_next
   69  LOAD   buffer=inp sram_base=0 dram_base=70 y_size=3 x_size=14 x_stride=14 x_pad0=1 pop_next
   70  LOAD   buffer=wgt sram_base=0 dram_base=25 y_size=1 x_size=9 x_stride=18 push_next
   71  LOAD   buffer=inp sram_base=45 dram_base=70 y_size=3 x_size=14 x_stride=14 x_pad0=1 pop_next
   72  LOAD   buffer=wgt sram_base=9 dram_base=43 y_size=1 x_size=9 x_stride=18 push_next
   73  GEMM   uop_begin=0 uop_end=63 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev push_prev
   74  GEMM   uop_begin=70 uop_end=133 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev push_prev
   75  LOAD   buffer=inp sram_base=0 dram_base=266 y_size=3 x_size=14 x_stride=14 x_pad0=1 pop_next
   76  LOAD   buffer=wgt sram_base=0 dram_base=34 y_size=1 x_size=9 x_stride=18 push_next
   77  LOAD   buffer=inp sram_base=45 dram_base=266 y_size=3 x_size=14 x_stride=14 x_pad0=1 pop_next
   78  LOAD   buffer=wgt sram_base=9 dram_base=52 y_size=1 x_size=9 x_stride=18 push_next
   79  GEMM   uop_begin=0 uop_end=63 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev push_prev
   80  GEMM   uop_begin=70 uop_end=133 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev push_prev
   81  SHR    uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=8
   82  MIN    uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=127
   83  MAX    uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=0 push_next
   84  SHR    uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=8
   85  MIN    uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=127
   86  MAX    uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=0 push_next
   87  STORE  sram_base=0 dram_base=1045 y_size=1 x_size=7 x_stride=7 buffer=out pop_prev push_prev
   88  STORE  sram_base=7 dram_base=1094 y_size=1 x_size=7 x_stride=7 buffer=out pop_prev push_prev
   89  GEMM   uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 reset=1 pop_next
   90  GEMM   uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 reset=1 pop_next
   91  LOAD   buffer=inp sram_base=0 dram_base=98 y_size=3 x_size=14 x_stride=14 x_pad0=1 pop_next
   92  LOAD   buffer=wgt sram_base=0 dram_base=25 y_size=1 x_size=9 x_stride=18 push_next
   93  LOAD   buffer=inp sram_base=45 dram_base=98 y_size=3 x_size=14 x_stride=14 x_pad0=1 pop_next
   94  LOAD   buffer=wgt sram_base=9 dram_base=43 y_size=1 x_size=9 x_stride=18 push_next
   95  GEMM   uop_begin=0 uop_end=63 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev push_prev
   96  GEMM   uop_begin=70 uop_end=133 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev push_prev
   97  LOAD   buffer=inp sram_base=0 dram_base=294 y_size=3 x_size=14 x_stride=14 x_pad0=1 pop_next
   98  LOAD   buffer=wgt sram_base=0 dram_base=34 y_size=1 x_size=9 x_stride=18 push_next
   99  LOAD   buffer=inp sram_base=45 dram_base=294 y_size=3 x_size=14 x_stride=14 x_pad0=1 pop_next
  100  LOAD   buffer=wgt sram_base=9 dram_base=52 y_size=1 x_size=9 x_stride=18 push_next
  101  GEMM   uop_begin=0 uop_end=63 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev push_prev
  102  GEMM   uop_begin=70 uop_end=133 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev push_prev
  103  SHR    uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=8
  104  MIN    uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=127
  105  MAX    uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=0 push_next
  106  SHR    uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=8
  107  MIN    uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=127
  108  MAX    uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=0 push_next
  109  STORE  sram_base=0 dram_base=1052 y_size=1 x_size=7 x_stride=7 buffer=out pop_prev push_prev
  110  STORE  sram_base=7 dram_base=1101 y_size=1 x_size=7 x_stride=7 buffer=out pop_prev push_prev
  111  GEMM   uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 reset=1 pop_next
  112  GEMM   uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 reset=1 pop_next
  113  LOAD   buffer=inp sram_base=0 dram_base=126 y_size=3 x_size=14 x_stride=14 x_pad0=1 pop_next
  114  LOAD   buffer=wgt sram_base=0 dram_base=25 y_size=1 x_size=9 x_stride=18 push_next
  115  LOAD   buffer=inp sram_base=45 dram_base=126 y_size=3 x_size=14 x_stride=14 x_pad0=1 pop_next
  116  LOAD   buffer=wgt sram_base=9 dram_base=43 y_size=1 x_size=9 x_stride=18 push_next
  117  GEMM   uop_begin=0 uop_end=63 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev push_prev
  118  GEMM   uop_begin=70 uop_end=133 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev push_prev
  119  LOAD   buffer=inp sram_base=0 dram_base=322 y_size=3 x_size=14 x_stride=14 x_pad0=1 pop_next
  120  LOAD   buffer=wgt sram_base=0 dram_base=34 y_size=1 x_size=9 x_stride=18 push_next
  121  LOAD   buffer=inp sram_base=45 dram_base=322 y_size=3 x_size=14 x_stride=14 x_pad0=1 pop_next
  122  LOAD   buffer=wgt sram_base=9 dram_base=52 y_size=1 x_size=9 x_stride=18 push_next
  123  GEMM   uop_begin=0 uop_end=63 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev push_prev
  124  GEMM   uop_begin=70 uop_end=133 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev push_prev
  125  SHR    uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=8
  126  MIN    uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=127
  127  MAX    uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=0 push_next
  128  SHR    uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=8
  129  MIN    uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=127
  130  MAX    uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=0 push_next
  131  STORE  sram_base=0 dram_base=1059 y_size=1 x_size=7 x_stride=7 buffer=out pop_prev push_prev
  132  STORE  sram_base=7 dram_base=1108 y_size=1 x_size=7 x_stride=7 buffer=out pop_prev push_prev
  133  GEMM   uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 reset=1 pop_next
  134  GEMM   uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 reset=1 pop_next
  135  LOAD   buffer=inp sram_base=0 dram_base=154 y_size=3 x_size=14 x_stride=14 x_pad0=1 pop_next
  136  LOAD   buffer=wgt sram_base=0 dram_base=25 y_size=1 x_size=9 x_stride=18 push_next
  137  LOAD   buffer=inp sram_base=45 dram_base=154 y_size=3 x_size=14 x_stride=14 x_pad0=1 pop_next
  138  LOAD   buffer=wgt sram_base=9 dram_base=43 y_size=1 x_size=9 x_stride=18 push_next
  139  GEMM   uop_begin=0 uop_end=63 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev push_prev
  140  GEMM   uop_begin=70 uop_end=133 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev push_prev
  141  LOAD   buffer=inp sram_base=0 dram_base=350 y_size=3 x_size=14 x_stride=14 x_pad0=1 pop_next
  142  LOAD   buffer=wgt sram_base=0 dram_base=34 y_size=1 x_size=9 x_stride=18 push_next
  143  LOAD   buffer=inp sram_base=45 dram_base=350 y_size=3 x_size=14 x_stride=14 x_pad0=1 pop_next
  144  LOAD   buffer=wgt sram_base=9 dram_base=52 y_size=1 x_size=9 x_stride=18 push_next
  145  GEMM   uop_begin=0 uop_end=63 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev
  146  GEMM   uop_begin=70 uop_end=133 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 src_factor_in=30 wgt_factor_out=9 pop_prev
  147  SHR    uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=8
  148  MIN    uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=127
  149  MAX    uop_begin=63 uop_end=70 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=0 push_next
  150  SHR    uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=8
  151  MIN    uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=127
  152  MAX    uop_begin=133 uop_end=140 iter_out=1 iter_in=1 dst_factor_out=7 dst_factor_in=7 use_imm=1 imm=0 push_next
  153  STORE  sram_base=0 dram_base=1066 y_size=1 x_size=7 x_stride=7 buffer=out pop_prev
  154  STORE  sram_base=7 dram_base=1115 y_size=1 x_size=7 x_stride=7 buffer=out pop_prev
  155  FINISH
    0  UOP    acc=0 inp=0 wgt=0
    1  UOP    acc=1 inp=2 wgt=0
    2  UOP    acc=2 inp=4 wgt=0
    3  UOP    acc=3 inp=6 wgt=0
    4  UOP    acc=4 inp=8 wgt=0
    5  UOP    acc=5 inp=10 wgt=0
    6  UOP    acc=6 inp=12 wgt=0
    7  UOP    acc=0 inp=1 wgt=1
    8  UOP    acc=1 inp=3 wgt=1
    9  UOP    acc=2 inp=5 wgt=1
   10  UOP    acc=3 inp=7 wgt=1
   11  UOP    acc=4 inp=9 wgt=1
   12  UOP    acc=5 inp=11 wgt=1
   13  UOP    acc=6 inp=13 wgt=1
   14  UOP    acc=0 inp=2 wgt=2
   15  UOP    acc=1 inp=4 wgt=2
   16  UOP    acc=2 inp=6 wgt=2
   17  UOP    acc=3 inp=8 wgt=2
   18  UOP    acc=4 inp=10 wgt=2
   19  UOP    acc=5 inp=12 wgt=2
   20  UOP    acc=6 inp=14 wgt=2
   21  UOP    acc=0 inp=15 wgt=3
   22  UOP    acc=1 inp=17 wgt=3
   23  UOP    acc=2 inp=19 wgt=3
   24  UOP    acc=3 inp=21 wgt=3
   25  UOP    acc=4 inp=23 wgt=3
   26  UOP    acc=5 inp=25 wgt=3
   27  UOP    acc=6 inp=27 wgt=3
   28  UOP    acc=0 inp=16 wgt=4
   29  UOP    acc=1 inp=18 wgt=4
   30  UOP    acc=2 inp=20 wgt=4
   31  UOP    acc=3 inp=22 wgt=4
   32  UOP    acc=4 inp=24 wgt=4
   33  UOP    acc=5 inp=26 wgt=4
   34  UOP    acc=6 inp=28 wgt=4
   35  UOP    acc=0 inp=17 wgt=5
   36  UOP    acc=1 inp=19 wgt=5
   37  UOP    acc=2 inp=21 wgt=5
   38  UOP    acc=3 inp=23 wgt=5
   39  UOP    acc=4 inp=25 wgt=5
   40  UOP    acc=5 inp=27 wgt=5
   41  UOP    acc=6 inp=29 wgt=5
   42  UOP    acc=0 inp=30 wgt=6
   43  UOP    acc=1 inp=32 wgt=6
   44  UOP    acc=2 inp=34 wgt=6
   45  UOP    acc=3 inp=36 wgt=6
   46  UOP    acc=4 inp=38 wgt=6
   47  UOP    acc=5 inp=40 wgt=6
   48  UOP    acc=6 inp=42 wgt=6
   49  UOP    acc=0 inp=31 wgt=7
   50  UOP    acc=1 inp=33 wgt=7
   51  UOP    acc=2 inp=35 wgt=7
   52  UOP    acc=3 inp=37 wgt=7
   53  UOP    acc=4 inp=39 wgt=7
   54  UOP    acc=5 inp=41 wgt=7
   55  UOP    acc=6 inp=43 wgt=7
   56  UOP    acc=0 inp=32 wgt=8
   57  UOP    acc=1 inp=34 wgt=8
   58  UOP    acc=2 inp=36 wgt=8
   59  UOP    acc=3 inp=38 wgt=8
   60  UOP    acc=4 inp=40 wgt=8
   61  UOP    acc=5 inp=42 wgt=8
   62  UOP    acc=6 inp=44 wgt=8
   63  UOP    acc=0 inp=0 wgt=0
   64  UOP    acc=1 inp=1 wgt=0
   65  UOP    acc=2 inp=2 wgt=0
   66  UOP    acc=3 inp=3 wgt=0
   67  UOP    acc=4 inp=4 wgt=0
   68  UOP    acc=5 inp=5 wgt=0
   69  UOP    acc=6 inp=6 wgt=0
   70  UOP    acc=7 inp=45 wgt=9
   71  UOP    acc=8 inp=47 wgt=9
   72  UOP    acc=9 inp=49 wgt=9
   73  UOP    acc=10 inp=51 wgt=9
   74  UOP    acc=11 inp=53 wgt=9
   75  UOP    acc=12 inp=55 wgt=9
   76  UOP    acc=13 inp=57 wgt=9
   77  UOP    acc=7 inp=46 wgt=10
   78  UOP    acc=8 inp=48 wgt=10
   79  UOP    acc=9 inp=50 wgt=10
   80  UOP    acc=10 inp=52 wgt=10
   81  UOP    acc=11 inp=54 wgt=10
   82  UOP    acc=12 inp=56 wgt=10
   83  UOP    acc=13 inp=58 wgt=10
   84  UOP    acc=7 inp=47 wgt=11
   85  UOP    acc=8 inp=49 wgt=11
   86  UOP    acc=9 inp=51 wgt=11
   87  UOP    acc=10 inp=53 wgt=11
   88  UOP    acc=11 inp=55 wgt=11
   89  UOP    acc=12 inp=57 wgt=11
   90  UOP    acc=13 inp=59 wgt=11
   91  UOP    acc=7 inp=60 wgt=12
   92  UOP    acc=8 inp=62 wgt=12
   93  UOP    acc=9 inp=64 wgt=12
   94  UOP    acc=10 inp=66 wgt=12
   95  UOP    acc=11 inp=68 wgt=12
   96  UOP    acc=12 inp=70 wgt=12
   97  UOP    acc=13 inp=72 wgt=12
   98  UOP    acc=7 inp=61 wgt=13
   99  UOP    acc=8 inp=63 wgt=13
  100  UOP    acc=9 inp=65 wgt=13
  101  UOP    acc=10 inp=67 wgt=13
  102  UOP    acc=11 inp=69 wgt=13
  103  UOP    acc=12 inp=71 wgt=13
  104  UOP    acc=13 inp=73 wgt=13
  105  UOP    acc=7 inp=62 wgt=14
  106  UOP    acc=8 inp=64 wgt=14
  107  UOP    acc=9 inp=66 wgt=14
  108  UOP    acc=10 inp=68 wgt=14
  109  UOP    acc=11 inp=70 wgt=14
  110  UOP    acc=12 inp=72 wgt=14
  111  UOP    acc=13 inp=74 wgt=14
  112  UOP    acc=7 inp=75 wgt=15
  113  UOP    acc=8 inp=77 wgt=15
  114  UOP    acc=9 inp=79 wgt=15
  115  UOP    acc=10 inp=81 wgt=15
  116  UOP    acc=11 inp=83 wgt=15
  117  UOP    acc=12 inp=85 wgt=15
  118  UOP    acc=13 inp=87 wgt=15
  119  UOP    acc=7 inp=76 wgt=16
  120  UOP    acc=8 inp=78 wgt=16
  121  UOP    acc=9 inp=80 wgt=16
  122  UOP    acc=10 inp=82 wgt=16
  123  UOP    acc=11 inp=84 wgt=16
  124  UOP    acc=12 inp=86 wgt=16
  125  UOP    acc=13 inp=88 wgt=16
  126  UOP    acc=7 inp=77 wgt=17
  127  UOP    acc=8 inp=79 wgt=17
  128  UOP    acc=9 inp=81 wgt=17
  129  UOP    acc=10 inp=83 wgt=17
  130  UOP    acc=11 inp=85 wgt=17
  131  UOP    acc=12 inp=87 wgt=17
  132  UOP    acc=13 inp=89 wgt=17
  133  UOP    acc=7 inp=7 wgt=0
  134  UOP    acc=8 inp=8 wgt=0
  135  UOP    acc=9 inp=9 wgt=0
  136  UOP    acc=10 inp=10 wgt=0
  137  UOP    acc=11 inp=11 wgt=0
  138  UOP    acc=12 inp=12 wgt=0
  139  UOP    acc=13 inp=13 wgt=0
