package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestCompileVariantNeedsPTX: --variant chooses between the PTX of a
// kernel's two variants, so with any other --emit it is a usage mistake
// (status 2), not a flag ignored without a word.
func TestCompileVariantNeedsPTX(t *testing.T) {
	for _, emit := range []string{"ast", "ir", "lowered"} {
		var stdout, stderr bytes.Buffer
		rc := runCommand([]string{"compile", "--variant", "general", "--emit", emit, "../../testdata/kernels/matmul.tile"}, &stdout, &stderr)
		if rc != 2 || !strings.Contains(stderr.String(), "--variant picks the PTX of one variant: it needs --emit ptx") {
			t.Errorf("--variant general --emit %s: exit %d, stderr %q; want status 2 and a usage message", emit, rc, stderr.String())
		}
		if stdout.Len() != 0 {
			t.Errorf("--emit %s: printed %d bytes before the usage error", emit, stdout.Len())
		}
	}
}
