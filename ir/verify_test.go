package ir

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// verifyHeader opens the kernels of TestVerifyRejects: an array, a float,
// an int and a bool parameter.
const verifyHeader = "kernel @k(%0 A: array<?x?xf32> [M, N], %1 x: f32, %2 n: i32, %3 c: bool) {\n"

func TestVerifyRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string // instructions of the kernel; "return" is not added
		want string
	}{
		{"operand type", "%4 = add %1, %2 : f32\nreturn", "`%4 = add %1, %2 : f32`: operand %2 has type i32, want the result type f32"},
		{"operand count", "%4 = neg %1, %1 : f32\nreturn", "neg takes 1 operands, has 2"},
		{"missing attr", "%4 = bid : i32\nreturn", "`%4 = bid : i32`: missing attribute axis"},
		{"bid axis", "%4 = bid {axis=3} : i32\nreturn", "axis 3, want 0, 1 or 2"},
		{"bid result", "%4 = num_blocks {axis=1} : i64\nreturn", "result i64, want i32"},
		{"result count", "%4, %5 = neg %1 : f32, f32\nreturn", "neg has 2 results, want 1"},
		{"dominance", "for %2, %2, %2 {\n^(%5: i32)\n%6 = neg %5 : i32\nyield\n}\n%7 = neg %6 : i32\nreturn", "`%7 = neg %6 : i32`: operand %6 does not dominate its use"},
		{"dominance in sibling region", "if %3 {\n%4 = neg %1 : f32\nyield\n} else {\n%5 = neg %4 : f32\nyield\n}\nreturn", "operand %4 does not dominate its use"},
		{"cmp result", "%4 = cmp %1, %1 {pred=lt} : f32\nreturn", "result f32, want bool of the operands' shape"},
		{"cmp pred", "%4 = cmp %1, %1 {pred=less} : bool\nreturn", "attribute pred=less, want one of eq, ne, lt, le, gt, ge"},
		{"cmp operands", "%4 = convert %2 : f32\n%5 = cmp %1, %2 {pred=lt} : bool\nreturn", "operand types f32 and i32 differ"},
		{"select cond", "%4 = splat %1 : tile<16xf32>\n%5 = splat %3 : tile<32xbool>\n%6 = select %5, %4, %4 : tile<16xf32>\nreturn", "condition tile<32xbool>, want bool of the result's shape or a bool scalar"},
		{"select operand", "%4 = splat %1 : tile<16xf32>\n%5 = select %3, %4, %1 : tile<16xf32>\nreturn", "operands tile<16xf32>, f32, want the result type tile<16xf32>"},
		{"convert shape", "%4 = splat %1 : tile<16xf32>\n%5 = convert %4 : tile<32xf16>\nreturn", "convert tile<16xf32> to tile<32xf16> changes the shape"},
		{"convert scalar to tile", "%4 = convert %1 : tile<f16>\nreturn", "changes the shape"},
		{"splat dtype", "%4 = splat %1 : tile<16xf16>\nreturn", "splat f32 to tile<16xf16>, want a scalar to a tile of its dtype"},
		{"iota rank", "%4 = iota : tile<16x16xi32>\nreturn", "result tile<16x16xi32>, want a rank-1 i32 or i64 tile"},
		{"iota dtype", "%4 = iota : tile<16xf32>\nreturn", "want a rank-1 i32 or i64 tile"},
		{"broadcast dim", "%4 = splat %1 : tile<2x16xf32>\n%5 = broadcast %4 : tile<4x16xf32>\nreturn", "dim 0 is neither equal nor 1"},
		{"broadcast rank", "%4 = splat %1 : tile<16xf32>\n%5 = broadcast %4 : tile<4x16xf32>\nreturn", "want tiles of one dtype and rank"},
		{"reshape count", "%4 = splat %1 : tile<16xf32>\n%5 = reshape %4 : tile<4x8xf32>\nreturn", "reshape tile<16xf32> to tile<4x8xf32> changes the element count"},
		{"reshape dtype", "%4 = splat %1 : tile<16xf32>\n%5 = reshape %4 : tile<4x4xf16>\nreturn", "want tiles of one dtype"},
		{"permute not a permutation", "%4 = splat %1 : tile<4x8xf32>\n%5 = permute %4 {perm=[0, 0]} : tile<4x8xf32>\nreturn", "perm [0, 0] is not a permutation"},
		{"permute length", "%4 = splat %1 : tile<4x8xf32>\n%5 = permute %4 {perm=[0]} : tile<4x8xf32>\nreturn", "perm [0], want a permutation of 2 axes"},
		{"permute shape", "%4 = splat %1 : tile<4x8xf32>\n%5 = permute %4 {perm=[1, 0]} : tile<4x8xf32>\nreturn", "permute tile<4x8xf32> by [1, 0] gives tile<8x4xf32>"},
		{"reduce axis", "%4 = splat %1 : tile<4x8xf32>\n%5 = reduce %4 {axis=2, kind=sum} : tile<4xf32>\nreturn", "axis 2 out of range for tile<4x8xf32>"},
		{"reduce shape", "%4 = splat %1 : tile<4x8xf32>\n%5 = reduce %4 {axis=1, kind=sum} : tile<8xf32>\nreturn", "result tile<8xf32>, want tile<4xf32>"},
		{"reduce argmax dtype", "%4 = splat %1 : tile<4x8xf32>\n%5 = reduce %4 {axis=0, kind=argmax} : tile<8xf32>\nreturn", "result tile<8xf32>, want tile<8xi32>"},
		{"reduce kind", "%4 = splat %1 : tile<4x8xf32>\n%5 = reduce %4 {axis=0, kind=mean} : tile<8xf32>\nreturn", "attribute kind=mean, want one of sum, max, min, argmax, argmin"},
		{"mma K", "%4 = load %0[%2, %2] {pad=zero} : tile<16x32xf32>\n%5 = load %0[%2, %2] {pad=zero} : tile<16x8xf32>\n%6 = splat %1 : tile<16x8xf32>\n%7 = mma %4, %5, %6 : tile<16x8xf32>\nreturn", "mma shapes (16,32) x (16,8) + (16,8) do not match (M,K)x(K,N)+(M,N)"},
		{"mma dtype", "%4 = load %0[%2, %2] {pad=zero} : tile<16x16xf32>\n%5 = convert %4 : tile<16x16xbf16>\n%6 = convert %4 : tile<16x16xf16>\n%7 = mma %5, %5, %6 : tile<16x16xf16>\nreturn", "mma of bf16 x bf16 into f16 is not supported"},
		{"mma mixed inputs", "%4 = load %0[%2, %2] {pad=zero} : tile<16x16xf32>\n%5 = convert %4 : tile<16x16xbf16>\n%6 = convert %4 : tile<16x16xf16>\n%7 = mma %5, %6, %4 : tile<16x16xf32>\nreturn", "mma of bf16 x f16 into f32 is not supported"},
		{"mma batch", "%4 = splat %1 : tile<2x16x16xf32>\n%5 = splat %1 : tile<4x16x16xf32>\n%6 = mma %4, %5, %4 : tile<2x16x16xf32>\nreturn", "mma batch extents 2, 4, 2 differ"},
		{"mma acc", "%4 = splat %1 : tile<16x16xf32>\n%5 = mma %4, %4, %4 : tile<16x16xf16>\nreturn", "accumulator tile<16x16xf32>, want the result type tile<16x16xf16>"},
		{"load index count", "%4 = load %0[%2] {pad=zero} : tile<16xf32>\nreturn", "1 indices for a rank-2 array"},
		{"load index type", "%4 = load %0[%2, %1] {pad=zero} : tile<16x16xf32>\nreturn", "index %1 has type f32, want a scalar integer"},
		{"load not array", "%4 = load %1[%2, %2] {pad=zero} : tile<16x16xf32>\nreturn", "operand %1 has type f32, want an array"},
		{"load result", "%4 = load %0[%2, %2] {pad=zero} : tile<16x16xf16>\nreturn", "result tile<16x16xf16>, want a rank-2 f32 tile"},
		{"load pad", "%4 = load %0[%2, %2] {pad=one} : tile<16x16xf32>\nreturn", "attribute pad=one, want one of zero, neg_zero, nan, pos_inf, neg_inf"},
		{"store dtype", "%4 = splat %2 : tile<16x16xi32>\nstore %0[%2, %2], %4\nreturn", "stored %4 has type tile<16x16xi32>, want a rank-2 f32 tile"},
		{"store result", "%4 = splat %1 : tile<16x16xf32>\n%5 = store %0[%2, %2], %4 : f32\nreturn", "store has 1 results, want 0"},
		{"while cond type", "%5 = while %2 : i32 {\n^(%6: i32)\nyield %6\n} do {\n^(%7: i32)\nyield %7\n}\nreturn", "the condition region must yield one bool scalar"},
		{"while params", "%5 = while %2 : i32 {\n^(%6: i32)\nyield %3\n} do {\nyield %2\n}\nreturn", "region 1 has 0 parameters, want 1"},
		{"while result type", "%5 = while %2 : f32 {\n^(%6: i32)\nyield %3\n} do {\n^(%7: i32)\nyield %7\n}\nreturn", "result %5 has type f32, want the init's i32"},
		{"while body yield", "%5 = while %2 : i32 {\n^(%6: i32)\nyield %3\n} do {\n^(%7: i32)\nyield %1\n}\nreturn", "region yields %1 of type f32, want i32"},
		{"while param scope", "%5 = while %2 : i32 {\n^(%6: i32)\nyield %3\n} do {\n^(%7: i32)\n%8 = neg %6 : i32\nyield %8\n}\nreturn", "operand %6 does not dominate its use"},
		{"for bounds", "%4 = convert %2 : i64\nfor %2, %4, %2 {\n^(%5: i32)\nyield\n}\nreturn", "bound %4 has type i64, want i32 like the others"},
		{"for float bounds", "for %1, %1, %1 {\n^(%5: f32)\nyield\n}\nreturn", "bound %1 has type f32, want a scalar integer"},
		{"for too few", "for %2, %2 {\nyield\n}\nreturn", "for needs lo, hi and step"},
		{"for params", "%4 = for %2, %2, %2, %1 : f32 {\n^(%5: i32)\nyield %1\n}\nreturn", "body has 1 parameters, want 2"},
		{"for param type", "%4 = for %2, %2, %2, %1 : f32 {\n^(%5: i32, %6: i32)\nyield %1\n}\nreturn", "body parameter 1 has type i32, want f32"},
		{"for yield", "%4 = for %2, %2, %2, %1 : f32 {\n^(%5: i32, %6: f32)\nyield %5\n}\nreturn", "region yields %5 of type i32, want f32"},
		{"for result", "%4 = for %2, %2, %2, %1 : i32 {\n^(%5: i32, %6: f32)\nyield %6\n}\nreturn", "result %4 has type i32, want the init's f32"},
		{"if cond", "if %2 {\nyield\n} else {\nyield\n}\nreturn", "condition %2 has type i32, want bool"},
		{"if yield count", "%4 = if %3 : f32 {\nyield %1\n} else {\nyield\n}\nreturn", "region yields 0 values, want 1"},
		{"if regions", "%4 = if %3 : f32 {\nyield %1\n}\nreturn", "if takes 2 regions, has 1"},
		{"if params", "if %3 {\n^(%4: i32)\nyield\n} else {\nyield\n}\nreturn", "region 0 has parameters"},
		{"early return", "return\n%4 = neg %1 : f32\nreturn", "`return`: terminator before the end of its block"},
		{"no return", "%4 = neg %1 : f32", "`%4 = neg %1 : f32`: block must end with return"},
		{"empty body", "", "empty body: it must end with return"},
		{"yield in body", "yield", "`yield`: block must end with return"},
		{"return in region", "if %3 {\nreturn\n} else {\nyield\n}\nreturn", "`return`: block must end with yield"},
		{"empty region", "if %3 {\n} else {\nyield\n}\nreturn", "`if %3 {...} else {...}`: empty region: it must end with yield"},
		{"tile dim", "%4 = splat %1 : tile<48xf32>\nreturn", "tile dimension 48 of tile<48xf32> is not a positive power of two"},
		{"tile dim zero", "%4 = splat %1 : tile<0xf32>\nreturn", "tile dimension 0 of tile<0xf32> is not a positive power of two"},
		{"dim axis", "%4 = dim %0 {axis=2} : i32\nreturn", "axis 2 out of range for array<?x?xf32>"},
		{"dim result", "%4 = dim %0 {axis=0} : f32\nreturn", "result f32, want a scalar integer"},
		{"div on ints", "%4 = div %2, %2 : i32\nreturn", "div needs a float type, has i32"},
		{"exp on ints", "%4 = exp %2 : i32\nreturn", "exp needs a float type, has i32"},
		{"xor on floats", "%4 = xor %1, %1 : f32\nreturn", "xor needs a bool or integer type, has f32"},
		{"add on bools", "%4 = add %3, %3 : bool\nreturn", "add on bool"},
		{"add on arrays", "%4 = add %0, %0 : array<?x?xf32>\nreturn", "add on array<?x?xf32>, want a scalar or a tile"},
		{"const bool", "%4 = const {value=true} : i32\nreturn", "bool value for i32"},
		{"const range", "%4 = const {value=2147483648} : i32\nreturn", "value 2147483648 does not fit in i32"},
		{"const float", "%4 = const {value=1.5} : i64\nreturn", "float value for i64"},
		{"const tile", "%4 = const {value=1.5} : tile<2xf32>\nreturn", "const result tile<2xf32>, want a scalar"},
		{"const kind", "%4 = const {value=one} : f32\nreturn", "attribute value=one is a string, want int, float or bool (int64, float64 or bool)"},
		{"unknown attr", "%4 = neg %1 {note=x} : f32\nreturn", "`%4 = neg %1 {note=x} : f32`: unknown attribute note on neg"},
		{"lowered attr on another op", "%4 = neg %1 {num_warps=4} : f32\nreturn", "unknown attribute num_warps on neg"},
		{"pipelined on a store", "%4 = splat %1 : tile<16x16xf32>\nstore %0[%2, %2], %4 {pipelined=true}\nreturn", "unknown attribute pipelined on store"},
		{"kernel fact on return", "return {num_warps=4}", "unknown attribute num_warps on return"},
		{"lowered bool kind", "%4 = load %0[%2, %2] {pad=zero, staged=1} : tile<16x16xf32>\nreturn", "attribute staged=1 is an int, want bool (bool)"},
		{"axis kind", "%4 = bid {axis=1.5} : i32\nreturn", "attribute axis=1.5 is a float, want int (int64)"},
		{"perm kind", "%4 = splat %1 : tile<4x8xf32>\n%5 = permute %4 {perm=1} : tile<8x4xf32>\nreturn", "attribute perm=1 is an int, want int list ([]int)"},
		{"enum kind", "%4 = cmp %1, %1 {pred=[1]} : bool\nreturn", "attribute pred=[1] is an int list, want enum (string)"},
		{"layout kind", "%4 = splat %1 {layout=3} : tile<16xf32>\nreturn", "attribute layout=3 is an int, want layout (*ir.Layout)"},
		{"layout on a scalar", "%4 = neg %1 {layout=smem} : f32\nreturn", "attribute layout on an instruction that does not define one tile"},
		{"layout on a store", "%4 = splat %1 : tile<16x16xf32>\nstore %0[%2, %2], %4 {layout=smem}\nreturn", "unknown attribute layout on store"},
		{"layout kind name", "%4 = splat %1 {layout=wavy} : tile<16xf32>\nreturn", `attribute layout: unknown layout kind "wavy"`},
		{"layout basis rank", "%4 = splat %1 {layout=blocked<reg=[[1, 0]], lane=[[2], [4], [8], [0], [0]], warp=[]>} : tile<16xf32>\nreturn", "layout reg basis [1, 0], want 1 components"},
		{"layout lanes", "%4 = splat %1 {layout=blocked<reg=[], lane=[[1]], warp=[]>} : tile<16xf32>\nreturn", "layout of a rank-1 tile has 1 lane bases, want 5"},
		{"layout basis range", "%4 = splat %1 {layout=blocked<reg=[], lane=[[1], [2], [4], [8], [16]], warp=[]>} : tile<16xf32>\nreturn", "layout lane basis [16]: component 0 is not 0 or a power of two below 16"},
		{"layout basis power of two", "%4 = splat %1 {layout=blocked<reg=[], lane=[[1], [2], [4], [8], [3]], warp=[]>} : tile<16xf32>\nreturn", "layout lane basis [3]: component 0 is not 0 or a power of two below 16"},
		{"mma layout warps", "%4 = splat %1 {layout=mma<reg=[], lane=[[0, 1], [0, 2], [1, 0], [2, 0], [4, 0]], warp=[]>} : tile<8x4xf32>\nreturn", "mma layout: want a rank-2 tile and warps=[M, N]"},
		{"mma layout warp grid", "%4 = splat %1 {layout=mma<warps=[3, 1], reg=[], lane=[[0, 1], [0, 2], [1, 0], [2, 0], [4, 0]], warp=[]>} : tile<8x4xf32>\nreturn", "mma layout: warps [3, 1] are not positive powers of two"},
		{"blocked layout warps", "%4 = splat %1 {layout=blocked<warps=[1, 1], reg=[], lane=[[0, 1], [0, 2], [1, 0], [2, 0], [4, 0]], warp=[]>} : tile<8x4xf32>\nreturn", "blocked layout with warps"},
		{"smem layout bases", "%4 = splat %1 {layout=smem<reg=[[1]]>} : tile<16xf32>\nreturn", "smem layout with bases"},
		{"rank-0 layout bases", "%4 = splat %1 {layout=blocked<reg=[], lane=[[], [], [], [], []], warp=[]>} : tile<f32>\nreturn", "layout of a rank-0 tile has 5 lane bases, want 0"},
		{"smem_slot of a non-ring", "%4 = splat %1 : tile<16x16xf32>\n%5 = smem_slot %4, %2 {layout=smem} : tile<16x16xf32>\nreturn", "%4 is not a smem_alloc ring"},
		{"smem_slot index type", "%4 = smem_alloc {layout=smem, row_bytes=64, smem=0, stage_bytes=1024, stages=2} : tile<16x16xf32>\n%5 = smem_slot %4, %1 {layout=smem} : tile<16x16xf32>\nreturn", "slot %1 has type f32, want i32"},
		{"smem_alloc stages", "%4 = smem_alloc {layout=smem, row_bytes=64, smem=0, stage_bytes=1024, stages=0} : tile<16x16xf32>\nreturn", "smem_alloc needs stages >= 1"},
		{"async_copy into a register tile", "%4 = splat %1 : tile<16x16xf32>\nasync_copy %0[%2, %2], %4 {pad=zero, part=0, parts=1, path=auto}\nreturn", "destination %4 is not a smem_slot"},
		{"async_copy part", "%4 = smem_alloc {layout=smem, row_bytes=64, smem=0, stage_bytes=1024, stages=1} : tile<16x16xf32>\n%5 = smem_slot %4, %2 {layout=smem} : tile<16x16xf32>\nasync_copy %0[%2, %2], %5 {pad=zero, part=2, parts=2, path=vector}\nreturn", "part 2 of 2"},
		{"async_copy path", "%4 = smem_alloc {layout=smem, row_bytes=64, smem=0, stage_bytes=1024, stages=1} : tile<16x16xf32>\n%5 = smem_slot %4, %2 {layout=smem} : tile<16x16xf32>\nasync_copy %0[%2, %2], %5 {pad=zero, part=0, parts=1, path=bulk}\nreturn", "attribute path=bulk, want one of auto, vector, element"},
		{"async_wait without pending", "async_wait\nreturn", "missing attribute pending"},
		{"frag_load layout", "%4 = smem_alloc {layout=smem, row_bytes=64, smem=0, stage_bytes=1024, stages=1} : tile<16x16xf32>\n%5 = smem_slot %4, %2 {layout=smem} : tile<16x16xf32>\n%6 = frag_load %5 {kstep=0, layout=mma_a<warps=[3, 1]>, operand=a} : tile<16x8xf32>\nreturn", "mma_a layout: warps [3, 1] are not positive powers of two"},
		{"mma_step without layout", "%4 = splat %1 : tile<16x8xf32>\n%5 = splat %1 : tile<8x16xf32>\n%6 = splat %1 : tile<16x8xf32>\n%7 = mma_step %4, %5, %6 : tile<16x8xf32>\nreturn", "missing attribute layout"},
		{"warp_id result", "%4 = warp_id : tile<4xf32>\nreturn", "`%4 = warp_id : tile<4xf32>`: result tile<4xf32>, want i32"},
		{"cta_count result", "%4 = cta_count : f64\nreturn", "`%4 = cta_count : f64`: result f64, want i32"},
		{"cta_id result", "%4 = cta_id : i64\nreturn", "result i64, want i32"},
		{"cluster_rank result", "%4 = cluster_rank : bool\nreturn", "result bool, want i32"},
		{"grid_size result", "%4 = grid_size {axis=0} : f32\nreturn", "result f32, want i32"},
		{"mbar_alloc result", "%4 = mbar_alloc {count=1, smem=0, stages=1} : tile<4xi32>\nreturn", "result tile<4xi32>, want i32 (the ring's shared address)"},
		{"gather result", "%4 = iota : tile<16xi32>\n%5 = splat %1 : tile<16xf32>\n%6 = gather %0, %4, %4, %5 {check_bounds=true} : tile<8xf32>\nreturn", "result tile<8xf32>, want tile<16xf32>"},
		{"cat result", "%4 = splat %1 : tile<4x8xf32>\n%5 = cat %4, %4 {axis=1} : tile<8x8xf32>\nreturn", "result tile<8x8xf32>, want tile<4x16xf32>"},
		{"vote_all of floats", "%4 = splat %1 : tile<16xf32>\n%5 = vote_all %4 : bool\nreturn", "vote_all of tile<16xf32>, want a bool tile"},
		{"vote_all of a scalar", "%4 = vote_all %3 : bool\nreturn", "vote_all of bool, want a bool tile"},
		{"vote_all result", "%4 = splat %3 : tile<16xbool>\n%5 = vote_all %4 : tile<16xbool>\nreturn", "want bool"},
		{"vote_all not a condition", "%4 = splat %3 : tile<16xbool>\n%5 = vote_all %4 : bool\n%6 = select %5, %1, %1 : f32\nreturn",
			"%5 is warp-uniform (vote_all): only an if may branch on it"},
		{"vote_all if yields a scalar", "%4 = splat %3 : tile<16xbool>\n%5 = vote_all %4 : bool\n%6 = if %5 : f32 {\nyield %1\n} else {\nyield %1\n}\nreturn",
			"its results must be tiles of rank 1 or more"},
		{"vote_all arm exchanges", "%4 = splat %3 : tile<16xbool>\n%5 = vote_all %4 : bool\n%6 = splat %1 : tile<16xf32>\n%7 = if %5 : tile<16xf32> {\nyield %6\n} else {\n%8 = scan %6 {axis=0, kind=sum} : tile<16xf32>\nyield %8\n}\nreturn",
			"holds `%8 = scan %6 {axis=0, kind=sum} : tile<16xf32>`: only pure ops without shared memory may run in one warp's branch"},
		{"vote_all arm barrier", "%4 = splat %3 : tile<16xbool>\n%5 = vote_all %4 : bool\n%6 = splat %1 : tile<16xf32>\n%7 = if %5 : tile<16xf32> {\nbarrier\nyield %6\n} else {\nyield %6\n}\nreturn",
			"holds `barrier`"},
		{"vote_all arm store", "%4 = splat %3 : tile<16xbool>\n%5 = vote_all %4 : bool\n%6 = splat %1 : tile<16x16xf32>\n%7 = if %5 : tile<16x16xf32> {\nyield %6\n} else {\nfor %2, %2, %2 {\n^(%8: i32)\nstore %0[%2, %2], %6\nyield\n}\nyield %6\n}\nreturn",
			"holds `store %0[%2, %2], %6`"},
		{"rank-0 layout reg bases", "%4 = splat %1 {layout=blocked<reg=[[]], lane=[], warp=[]>} : tile<f32>\nreturn", "layout of a rank-0 tile has reg bases"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := verifyHeader + tc.body + "\n}\n"
			f, err := ParseFunc(text)
			if err != nil {
				t.Fatalf("Parse: %v\n%s", err, text)
			}
			err = Verify(f)
			if err == nil {
				t.Fatalf("Verify accepted:\n%s", text)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Verify error\n  %v\ndoes not contain\n  %s", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "ir: kernel @k: ") {
				t.Errorf("error %q does not name the kernel", err)
			}
		})
	}
}

// TestVerifyVoteAll: an if on a vote_all whose arms are pure register
// code (lower's rescale rewrite: keep x, or multiply it) verifies.
func TestVerifyVoteAll(t *testing.T) {
	text := verifyHeader + `%4 = splat %1 : tile<16x1xf32>
%5 = const {value=1.0} : f32
%6 = splat %5 : tile<16x1xf32>
%7 = cmp %4, %6 {pred=eq} : tile<16x1xbool>
%8 = vote_all %7 : bool
%9 = broadcast %4 : tile<16x16xf32>
%10 = splat %1 : tile<16x16xf32>
%12 = if %8 : tile<16x16xf32> {
yield %10
} else {
%11 = mul %10, %9 : tile<16x16xf32>
yield %11
}
return
}
`
	f, err := ParseFunc(text)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(f); err != nil {
		t.Fatal(err)
	}
}

// TestVerifyRejectsHeader covers the kernel's parameters, constants and grid.
func TestVerifyRejectsHeader(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"grid symbol", "kernel @k(%0 A: array<?xf32> [M]) grid(cdiv(N, 4), 1, 1) {\nreturn\n}", `grid axis 0: unknown dimension "N" in cdiv(N, 4)`},
		{"scalar dims", "kernel @k(%0 x: f32 [M]) {\nreturn\n}", "scalar parameter x has dims"},
		{"dims count", "kernel @k(%0 A: array<?x?xf32> [M]) {\nreturn\n}", "parameter A: 1 dims declared for array<?x?xf32>"},
		{"negative dim", "kernel @k(%0 A: array<?xf32> [-4]) {\nreturn\n}", `parameter A: bad dim "-4"`},
		{"param tile", "kernel @k(%0 t: tile<4xf32>) {\nreturn\n}", "parameter t has type tile<4xf32>, want an array or a scalar"},
		{"param names", "kernel @k(%0 x: f32, %1 x: f32) {\nreturn\n}", "parameter name x repeated"},
		{"kernel name", "kernel @\"a b\"() {\nreturn\n}", `kernel name "a b" is not an identifier`},
		{"kernel fact range", "kernel @k() lowered(smem_bytes=-1) {\nreturn\n}", "kernel fact smem_bytes=-1 is negative"},
		{"kernel fact variant", "kernel @k() lowered(variant=slow) {\nreturn\n}", "kernel fact variant=slow, want fast or general"},
		{"const name", "kernel @k() consts(\"a b\"=1) {\nreturn\n}", `constant name "a b" is not an identifier`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ParseFunc(tc.text)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			err = Verify(f)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Verify error %v, want %s", err, tc.want)
			}
		})
	}
	m, err := Parse("kernel @k() {\nreturn\n}\nkernel @k() {\nreturn\n}\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyModule(m); err == nil || !strings.Contains(err.Error(), "kernel @k defined twice") {
		t.Errorf("VerifyModule: %v", err)
	}
}

// TestVerifyRejectsStructure breaks the pointers and IDs of a valid kernel,
// in ways that text cannot express.
func TestVerifyRejectsStructure(t *testing.T) {
	const text = `kernel @k(%0 A: array<?xf32> [N], %1 x: f32) {
  %2 = bid {axis=0} : i32
  %3 = const {value=0} : i32
  %4 = for %3, %2, %2, %1 : f32 {
    ^(%5: i32, %6: f32)
    %7 = neg %6 : f32
    yield %7
  }
  %8 = splat %4 : tile<16xf32>
  store %0[%2], %8
  return
}
`
	for _, tc := range []struct {
		name   string
		break_ func(f *Func)
		want   string
	}{
		{"duplicate ID", func(f *Func) { f.Body.Instrs[1].Result().ID = 2 }, "result %2: ID used by two values"},
		{"ID out of range", func(f *Func) { f.Body.Instrs[0].Result().ID = 9 }, "ID out of range [0, 9)"},
		{"result Def", func(f *Func) { f.Body.Instrs[1].Result().Def = f.Body.Instrs[0] }, "`%3 = const {value=0} : i32`: result %3 has inconsistent Def/Block/Index"},
		{"result Index", func(f *Func) { f.Body.Instrs[1].Result().Index = 1 }, "result %3 has inconsistent Def/Block/Index"},
		{"param Block", func(f *Func) { f.Body.Instrs[2].Regions[0].Params[1].Block = f.Body }, "block parameter %6 has inconsistent Def/Block/Index"},
		{"param Index", func(f *Func) { f.Body.Instrs[2].Regions[0].Params[0].Index = 3 }, "block parameter %5 has inconsistent Def/Block/Index"},
		{"instr Block", func(f *Func) { f.Body.Instrs[2].Regions[0].Instrs[0].Block = f.Body }, "`%7 = neg %6 : f32`: instruction's Block is not the block holding it"},
		{"region Parent", func(f *Func) { f.Body.Instrs[2].Regions[0].Parent = f.Body.Instrs[0] }, "region's Parent is not the instruction"},
		{"body Parent", func(f *Func) { f.Body.Parent = f.Body.Instrs[0] }, "body block has a parent instruction"},
		{"param value", func(f *Func) { f.Params[0].Value = f.Params[1].Value }, "parameter A is not body parameter 0"},
		{"param type", func(f *Func) { f.Params[1].Type = ScalarOf(I32) }, "parameter x has type i32 but its value %1 has f32"},
		{"param count", func(f *Func) { f.Params = f.Params[:1] }, "1 parameters but the body block has 2"},
		{"instr twice", func(f *Func) {
			f.Body.Instrs = append(f.Body.Instrs[:2], f.Body.Instrs[1:]...)
		}, "result %3 defined twice"},
		{"foreign value", func(f *Func) {
			g := NewFunc("g")
			f.Body.Instrs[3].Args[0] = g.NewValue(ScalarOf(F32))
		}, "`%8 = splat %0 : tile<16xf32>`: operand %0 is not defined in this kernel before its use"},
		{"nil type", func(f *Func) { f.Body.Instrs[0].Result().Type = nil }, "result %2: missing type"},
		{"nil operand", func(f *Func) { f.Body.Instrs[3].Args[0] = nil }, "`%8 = splat %? : tile<16xf32>`: operand 0 is nil"},
		{"bad dtype", func(f *Func) { f.Body.Instrs[0].Result().Type = ScalarOf(DType(99)) }, "result %2: invalid scalar type"},
		{"bad op", func(f *Func) { f.Body.Instrs[0].Op = Op(250) }, "invalid op 250"},
		{"attrs unsorted", func(f *Func) {
			f.Body.Instrs[0].Attrs = append(f.Body.Instrs[0].Attrs, Attr{"a", int64(1)})
		}, "attributes not sorted by key, or repeated"},
		{"attr kind", func(f *Func) { f.Body.Instrs[0].Attrs[0].Val = 1 }, "attribute axis=1 is of Go type int, want int (int64)"},
		{"const kind", func(f *Func) { f.Consts = []Const{{"a", "f16"}} }, "constant a has value f16 of type string"},
		{"grid arity", func(f *Func) { f.Grid[0] = &HostExpr{Op: HostCdiv, Args: []*HostExpr{{Op: HostSym, Sym: "N"}}} }, "grid axis 0: operator with 1 operands"},
		{"nil body", func(f *Func) { f.Body = nil }, "no body"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ParseFunc(text)
			if err != nil {
				t.Fatal(err)
			}
			if err := Verify(f); err != nil {
				t.Fatalf("before breaking: %v", err)
			}
			tc.break_(f)
			err = Verify(f)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Verify error\n  %v\nwant it to contain\n  %s", err, tc.want)
			}
		})
	}
	if err := Verify(nil); err == nil {
		t.Error("Verify(nil) succeeded")
	}
}

// TestVerifyTMALoadRanks: a TMA copy writes one matrix, of a 2-D array or
// picked from a 3-D or 4-D one by its leading indices ((B, H, S, D)
// attention arrays); a 5-D array has no tensor map.
func TestVerifyTMALoadRanks(t *testing.T) {
	for _, tc := range []struct {
		dims, idx string
		ok        bool
	}{
		{"?x?", "%1, %1", true},
		{"?x?x?", "%1, %1, %1", true},
		{"?x?x?x?", "%1, %1, %1, %1", true},
		{"?x?x?x?x?", "%1, %1, %1, %1, %1", false},
	} {
		text := "kernel @k(%0 A: array<" + tc.dims + "xf16>, %1 n: i32) {\n" +
			"%2 = smem_alloc {layout=smem, row_bytes=128, slab_bytes=8192, smem=0, stage_bytes=8192, stages=2} : tile<64x64xf16>\n" +
			"%3 = mbar_alloc {count=1, smem=16384, stages=2} : i32\n" +
			"%4 = smem_slot %2, %1 {layout=smem} : tile<64x64xf16>\n" +
			"tma_load %0[" + tc.idx + "], %4, %3, %1\nreturn\n}\n"
		f, err := ParseFunc(text)
		if err != nil {
			t.Fatalf("Parse: %v\n%s", err, text)
		}
		err = Verify(f)
		switch {
		case tc.ok && err != nil:
			t.Errorf("array<%sxf16>: %v", tc.dims, err)
		case !tc.ok && (err == nil || !strings.Contains(err.Error(), "want a 2-D f16 tile of a 2-D, 3-D or 4-D array")):
			t.Errorf("array<%sxf16>: error %v, want the destination's", tc.dims, err)
		}
	}
}

// TestInferComplete checks that every op has a typing rule, and that the
// check names the ops of a table that lack one.
func TestInferComplete(t *testing.T) {
	if missing := missingInfer(&opTable); len(missing) > 0 {
		t.Errorf("ops without a typing rule: %v", missing)
	}
	table := opTable
	table[OpMod].Infer = nil
	table[OpWarpID].Infer = nil
	if got, want := missingInfer(&table), []Op{OpMod, OpWarpID}; !slices.Equal(got, want) {
		t.Errorf("missingInfer = %v, want %v", got, want)
	}
}

// TestInferResults runs typing rules for a maker, without declared results.
func TestInferResults(t *testing.T) {
	f := NewFunc("k")
	x := f.AddParam("x", ScalarOf(F32), nil).Value
	n := f.AddParam("n", ScalarOf(I32), nil).Value
	tile := f.NewInstr(OpSplat, []*Value{x}, TileOf(F32, 4, 8)).Result()
	var axis1 Attrs
	axis1.Set("axis", 1)
	for _, tc := range []struct {
		op    Op
		args  []*Value
		attrs Attrs
		want  string
	}{
		{OpAdd, []*Value{x, x}, nil, "f32"},
		{OpCmp, []*Value{tile, tile}, Attrs{{"pred", PredLT}}, "tile<4x8xbool>"},
		{OpCat, []*Value{tile, tile}, axis1, "tile<4x16xf32>"},
		{OpReduce, []*Value{tile}, Attrs{{"axis", int64(1)}, {"kind", ReduceArgmax}}, "tile<4xi32>"},
		{OpPermute, []*Value{tile}, Attrs{{"perm", []int{1, 0}}}, "tile<8x4xf32>"},
		{OpWarpID, nil, nil, "i32"},
		{OpAdd, []*Value{x, n}, nil, "error: operand %1 has type i32, want the result type f32"},
		{OpConvert, []*Value{x}, nil, "error: the result type of convert is chosen by its maker"},
	} {
		got := ""
		r, msg := InferResult(tc.op, tc.args, tc.attrs)
		if msg != "" {
			got = "error: " + msg
		} else {
			got = r.String()
		}
		if got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.op, got, tc.want)
		}
	}
}

// TestAttrAccessors checks that the typed accessors read the attribute an
// op declares and panic on one it does not.
func TestAttrAccessors(t *testing.T) {
	red := &Instr{Op: OpReduce, Attrs: Attrs{{AttrKeyAxis, int64(1)}, {AttrKeyKind, ReduceMax}}}
	if red.Axis() != 1 || red.Kind() != ReduceMax {
		t.Errorf("reduce: Axis %d, Kind %q", red.Axis(), red.Kind())
	}
	if scan := (&Instr{Op: OpScan}); scan.Reverse() {
		t.Errorf("scan without reverse: Reverse() = true")
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "add declares no int attribute axis") {
			t.Errorf("Axis of add: recovered %v", r)
		}
	}()
	(&Instr{Op: OpAdd}).Axis()
}

// TestAttrKindAccessors checks the accessors written once per attribute
// kind: they read what the op declares, with the kind it declares, and
// panic on a key the op lacks or a read of the wrong kind.
func TestAttrKindAccessors(t *testing.T) {
	frag := &Instr{Op: OpFragLoad, Attrs: Attrs{{AttrKeyKStep, int64(3)}, {AttrKeyOperand, "b"}}}
	if frag.IntAttr(AttrKeyKStep) != 3 || frag.StrAttr(AttrKeyOperand) != "b" {
		t.Errorf("frag_load: kstep %d, operand %q", frag.IntAttr(AttrKeyKStep), frag.StrAttr(AttrKeyOperand))
	}
	if w := (&Instr{Op: OpWGMMA}); w.BoolAttr(AttrKeyZeroInit) || w.AttrOf(AttrKeyZeroInit) != nil {
		t.Errorf("wgmma without zero_init: %v, %v", w.BoolAttr(AttrKeyZeroInit), w.AttrOf(AttrKeyZeroInit))
	}
	if c := (&Instr{Op: OpConst, Attrs: Attrs{{AttrKeyValue, 2.5}}}); c.AttrOf(AttrKeyValue) != 2.5 {
		t.Errorf("const: value %v", c.AttrOf(AttrKeyValue))
	}
	for _, tc := range []struct {
		read func()
		want string
	}{
		{func() { frag.BoolAttr(AttrKeyKStep) }, "frag_load declares no bool attribute kstep"},
		{func() { frag.IntAttr(AttrKeyRegs) }, "frag_load declares no int attribute regs"},
		{func() { (&Instr{Op: OpBarrier}).StrAttr(AttrKeyThreads) }, "barrier declares no string attribute threads"},
		{func() { (&Instr{Op: OpAdd}).AttrOf(AttrKeyValue) }, "add declares no attribute value"},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), tc.want) {
					t.Errorf("recovered %v, want %q", r, tc.want)
				}
			}()
			tc.read()
		}()
	}
}
