package ptxgen

import "testing"

// A while loop is its condition at the top, a uniform branch out, the body
// and a branch back; a for loop with a break is one too. The run-time
// assert traps.
func TestWhileLoopsPatterns(t *testing.T) {
	checkPatterns(t, "while_loops.tile", nil, []string{
		`\$L_while_\d+:`, `@!%p\d+ bra\.uni \$L_endwhile_\d+;`, `\n\s*bra\.uni \$L_while_\d+;\n\$L_endwhile_\d+:`,
		`@!%p\d+ trap;`, `max\.f32`,
	}, []string{`ld\.local`})
}

// mma inside a while loop (and a for loop with a break) is not pipelined:
// each iteration copies its operands between barriers, then mma.sync.
func TestWhileMMAPatterns(t *testing.T) {
	checkPatterns(t, "while_mma.tile", nil, []string{
		`\$L_while_\d+:`, `bar\.sync 0;`, `cp\.async`, `mma\.sync\.aligned\.m16n8k16`,
	}, []string{`ld\.local`})
}

// A load with a non-identity order is a load and a permute (through the
// tile's layout), A.strides reads the 64-bit stride parameter as int32,
// extract/insert go through the scratch region.
func TestSurfaceOpsPatterns(t *testing.T) {
	checkPatterns(t, "surface_ops.tile", nil, []string{
		`cvt\.u32\.u64 %r\d+, %rd\d+;`, `ld\.param\.s64 %rd\d+, \[p_X_stride0\]`, `st\.shared`, `ld\.global`, `st\.global`,
	}, []string{`ld\.local`})
}
