; VTA program for config '1x32x32': 10 instructions, 140 micro-ops
; knobs {"tile_b": [1, 1], "tile_h": [1, 14], "tile_w": [1, 14], "tile_ci": [1, 1], "tile_co": [1, 1], "oc_nthread": 1, "h_nthread": 1}
; dram data    @0        |i1 [1, 1, 14, 14, 1, 32]
; dram weight  @7168     |i1 [1, 1, 3, 3, 32, 32]
; dram uops    @16384    <u4 [140]
; dram output  @17408    |i1 [1, 1, 14, 14, 1, 32]
    0  LOAD   buffer=uop sram_base=0 dram_base=4096 y_size=1 x_size=140 x_stride=0
    1  GEMM   uop_begin=126 uop_end=140 iter_out=1 iter_in=14 dst_factor_out=196 dst_factor_in=14 reset=1
    2  LOAD   buffer=inp sram_base=0 dram_base=0 y_size=14 x_size=14 x_stride=14 y_pad0=1 y_pad1=1 x_pad0=1 x_pad1=1
    3  LOAD   buffer=wgt sram_base=0 dram_base=7 y_size=1 x_size=9 x_stride=9 push_next
    4  GEMM   uop_begin=0 uop_end=126 iter_out=1 iter_in=14 dst_factor_out=196 dst_factor_in=14 src_factor_in=16 wgt_factor_out=9 pop_prev
    5  SHR    uop_begin=126 uop_end=140 iter_out=1 iter_in=14 dst_factor_out=196 dst_factor_in=14 use_imm=1 imm=8
    6  MIN    uop_begin=126 uop_end=140 iter_out=1 iter_in=14 dst_factor_out=196 dst_factor_in=14 use_imm=1 imm=127
    7  MAX    uop_begin=126 uop_end=140 iter_out=1 iter_in=14 dst_factor_out=196 dst_factor_in=14 use_imm=1 imm=0 push_next
    8  STORE  sram_base=0 dram_base=544 y_size=14 x_size=14 x_stride=14 buffer=out pop_prev
    9  FINISH
    0  UOP    acc=0 inp=0 wgt=0
    1  UOP    acc=1 inp=1 wgt=0
    2  UOP    acc=2 inp=2 wgt=0
    3  UOP    acc=3 inp=3 wgt=0
    4  UOP    acc=4 inp=4 wgt=0
    5  UOP    acc=5 inp=5 wgt=0
    6  UOP    acc=6 inp=6 wgt=0
    7  UOP    acc=7 inp=7 wgt=0
    8  UOP    acc=8 inp=8 wgt=0
    9  UOP    acc=9 inp=9 wgt=0
   10  UOP    acc=10 inp=10 wgt=0
   11  UOP    acc=11 inp=11 wgt=0
   12  UOP    acc=12 inp=12 wgt=0
   13  UOP    acc=13 inp=13 wgt=0
   14  UOP    acc=0 inp=1 wgt=1
   15  UOP    acc=1 inp=2 wgt=1
   16  UOP    acc=2 inp=3 wgt=1
   17  UOP    acc=3 inp=4 wgt=1
   18  UOP    acc=4 inp=5 wgt=1
   19  UOP    acc=5 inp=6 wgt=1
   20  UOP    acc=6 inp=7 wgt=1
   21  UOP    acc=7 inp=8 wgt=1
   22  UOP    acc=8 inp=9 wgt=1
   23  UOP    acc=9 inp=10 wgt=1
   24  UOP    acc=10 inp=11 wgt=1
   25  UOP    acc=11 inp=12 wgt=1
   26  UOP    acc=12 inp=13 wgt=1
   27  UOP    acc=13 inp=14 wgt=1
   28  UOP    acc=0 inp=2 wgt=2
   29  UOP    acc=1 inp=3 wgt=2
   30  UOP    acc=2 inp=4 wgt=2
   31  UOP    acc=3 inp=5 wgt=2
   32  UOP    acc=4 inp=6 wgt=2
   33  UOP    acc=5 inp=7 wgt=2
   34  UOP    acc=6 inp=8 wgt=2
   35  UOP    acc=7 inp=9 wgt=2
   36  UOP    acc=8 inp=10 wgt=2
   37  UOP    acc=9 inp=11 wgt=2
   38  UOP    acc=10 inp=12 wgt=2
   39  UOP    acc=11 inp=13 wgt=2
   40  UOP    acc=12 inp=14 wgt=2
   41  UOP    acc=13 inp=15 wgt=2
   42  UOP    acc=0 inp=16 wgt=3
   43  UOP    acc=1 inp=17 wgt=3
   44  UOP    acc=2 inp=18 wgt=3
   45  UOP    acc=3 inp=19 wgt=3
   46  UOP    acc=4 inp=20 wgt=3
   47  UOP    acc=5 inp=21 wgt=3
   48  UOP    acc=6 inp=22 wgt=3
   49  UOP    acc=7 inp=23 wgt=3
   50  UOP    acc=8 inp=24 wgt=3
   51  UOP    acc=9 inp=25 wgt=3
   52  UOP    acc=10 inp=26 wgt=3
   53  UOP    acc=11 inp=27 wgt=3
   54  UOP    acc=12 inp=28 wgt=3
   55  UOP    acc=13 inp=29 wgt=3
   56  UOP    acc=0 inp=17 wgt=4
   57  UOP    acc=1 inp=18 wgt=4
   58  UOP    acc=2 inp=19 wgt=4
   59  UOP    acc=3 inp=20 wgt=4
   60  UOP    acc=4 inp=21 wgt=4
   61  UOP    acc=5 inp=22 wgt=4
   62  UOP    acc=6 inp=23 wgt=4
   63  UOP    acc=7 inp=24 wgt=4
   64  UOP    acc=8 inp=25 wgt=4
   65  UOP    acc=9 inp=26 wgt=4
   66  UOP    acc=10 inp=27 wgt=4
   67  UOP    acc=11 inp=28 wgt=4
   68  UOP    acc=12 inp=29 wgt=4
   69  UOP    acc=13 inp=30 wgt=4
   70  UOP    acc=0 inp=18 wgt=5
   71  UOP    acc=1 inp=19 wgt=5
   72  UOP    acc=2 inp=20 wgt=5
   73  UOP    acc=3 inp=21 wgt=5
   74  UOP    acc=4 inp=22 wgt=5
   75  UOP    acc=5 inp=23 wgt=5
   76  UOP    acc=6 inp=24 wgt=5
   77  UOP    acc=7 inp=25 wgt=5
   78  UOP    acc=8 inp=26 wgt=5
   79  UOP    acc=9 inp=27 wgt=5
   80  UOP    acc=10 inp=28 wgt=5
   81  UOP    acc=11 inp=29 wgt=5
   82  UOP    acc=12 inp=30 wgt=5
   83  UOP    acc=13 inp=31 wgt=5
   84  UOP    acc=0 inp=32 wgt=6
   85  UOP    acc=1 inp=33 wgt=6
   86  UOP    acc=2 inp=34 wgt=6
   87  UOP    acc=3 inp=35 wgt=6
   88  UOP    acc=4 inp=36 wgt=6
   89  UOP    acc=5 inp=37 wgt=6
   90  UOP    acc=6 inp=38 wgt=6
   91  UOP    acc=7 inp=39 wgt=6
   92  UOP    acc=8 inp=40 wgt=6
   93  UOP    acc=9 inp=41 wgt=6
   94  UOP    acc=10 inp=42 wgt=6
   95  UOP    acc=11 inp=43 wgt=6
   96  UOP    acc=12 inp=44 wgt=6
   97  UOP    acc=13 inp=45 wgt=6
   98  UOP    acc=0 inp=33 wgt=7
   99  UOP    acc=1 inp=34 wgt=7
  100  UOP    acc=2 inp=35 wgt=7
  101  UOP    acc=3 inp=36 wgt=7
  102  UOP    acc=4 inp=37 wgt=7
  103  UOP    acc=5 inp=38 wgt=7
  104  UOP    acc=6 inp=39 wgt=7
  105  UOP    acc=7 inp=40 wgt=7
  106  UOP    acc=8 inp=41 wgt=7
  107  UOP    acc=9 inp=42 wgt=7
  108  UOP    acc=10 inp=43 wgt=7
  109  UOP    acc=11 inp=44 wgt=7
  110  UOP    acc=12 inp=45 wgt=7
  111  UOP    acc=13 inp=46 wgt=7
  112  UOP    acc=0 inp=34 wgt=8
  113  UOP    acc=1 inp=35 wgt=8
  114  UOP    acc=2 inp=36 wgt=8
  115  UOP    acc=3 inp=37 wgt=8
  116  UOP    acc=4 inp=38 wgt=8
  117  UOP    acc=5 inp=39 wgt=8
  118  UOP    acc=6 inp=40 wgt=8
  119  UOP    acc=7 inp=41 wgt=8
  120  UOP    acc=8 inp=42 wgt=8
  121  UOP    acc=9 inp=43 wgt=8
  122  UOP    acc=10 inp=44 wgt=8
  123  UOP    acc=11 inp=45 wgt=8
  124  UOP    acc=12 inp=46 wgt=8
  125  UOP    acc=13 inp=47 wgt=8
  126  UOP    acc=0 inp=0 wgt=0
  127  UOP    acc=1 inp=1 wgt=0
  128  UOP    acc=2 inp=2 wgt=0
  129  UOP    acc=3 inp=3 wgt=0
  130  UOP    acc=4 inp=4 wgt=0
  131  UOP    acc=5 inp=5 wgt=0
  132  UOP    acc=6 inp=6 wgt=0
  133  UOP    acc=7 inp=7 wgt=0
  134  UOP    acc=8 inp=8 wgt=0
  135  UOP    acc=9 inp=9 wgt=0
  136  UOP    acc=10 inp=10 wgt=0
  137  UOP    acc=11 inp=11 wgt=0
  138  UOP    acc=12 inp=12 wgt=0
  139  UOP    acc=13 inp=13 wgt=0
