package cudadrv

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestLoadErrorQuotesPTX(t *testing.T) {
	ptx := ".version 8.0\n.target sm_80\n\tadd.f33 %f2, %f1, %f1;\n\tret;\n"
	log := "ptxas application ptx input, line 3; error   : Unknown modifier '.f33'\n" +
		"ptxas application ptx input, line 3; error   : Unexpected instruction types specified for 'add'\n" +
		"ptxas application ptx input, line 99; error   : out of range\n" +
		"ptxas fatal   : Ptx assembly aborted due to errors"
	e := &LoadError{
		Driver: &Error{Call: "cuModuleLoadDataEx", Code: 218, Name: "CUDA_ERROR_INVALID_PTX"},
		Log:    log,
		Lines:  citedLines(log),
		PTX:    ptx,
	}
	if !slices.Equal(e.Lines, []int{3, 99}) {
		t.Fatalf("Lines = %v, want [3 99]", e.Lines)
	}
	msg := e.Error()
	for _, want := range []string{
		"cuModuleLoadDataEx: CUDA_ERROR_INVALID_PTX (218)",
		"Unknown modifier '.f33'",
		"PTX line 3: \tadd.f33 %f2, %f1, %f1;",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "PTX line 99") {
		t.Errorf("message quotes a line past the end:\n%s", msg)
	}
	var de *Error
	if !errors.As(e, &de) || de.Code != 218 {
		t.Errorf("errors.As(*Error) failed")
	}
}
