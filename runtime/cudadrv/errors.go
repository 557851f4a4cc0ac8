package cudadrv

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Error is a failed driver or cuBLAS call. Code is the CUresult (or
// cublasStatus_t for cuBLAS calls), so callers can tell, say, invalid PTX
// (218) from out of memory (2) without parsing text.
type Error struct {
	Call string // e.g. "cuLaunchKernel"
	Code int
	Name string // e.g. "CUDA_ERROR_INVALID_VALUE"
	Msg  string // the driver's description, when it has one
}

func (e *Error) Error() string {
	s := fmt.Sprintf("cudadrv: %s: %s (%d)", e.Call, e.Name, e.Code)
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	return s
}

// ErrClosed is returned by methods of a Device after Close.
var ErrClosed = errors.New("cudadrv: device is closed")

// LoadError is a failed cuModuleLoadDataEx. Its message carries the driver's
// error log and the PTX lines the log cites, so a broken emitter shows what
// it emitted without rerunning anything.
type LoadError struct {
	Driver  *Error // the CUresult, e.g. CUDA_ERROR_INVALID_PTX (218)
	Log     string // the JIT error log
	InfoLog string // the JIT info log, often empty on failure
	Lines   []int  // PTX line numbers cited by Log, in order of first mention
	PTX     string // the text that failed to load
}

func (e *LoadError) Error() string {
	var b strings.Builder
	b.WriteString(e.Driver.Error())
	if log := strings.TrimSpace(e.Log); log != "" {
		b.WriteString("\njit log:\n")
		b.WriteString(log)
	}
	ptxLines := strings.Split(e.PTX, "\n")
	for _, n := range e.Lines {
		if n >= 1 && n <= len(ptxLines) {
			fmt.Fprintf(&b, "\nPTX line %d: %s", n, strings.TrimRight(ptxLines[n-1], "\r"))
		}
	}
	return b.String()
}

func (e *LoadError) Unwrap() error { return e.Driver }

// logLine matches the JIT's "ptxas application ptx input, line 12; error ...".
var logLine = regexp.MustCompile(`\bline (\d+)\b`)

// citedLines returns the distinct line numbers a JIT log mentions, at most 16.
func citedLines(log string) []int {
	var lines []int
	seen := map[int]bool{}
	for _, m := range logLine.FindAllStringSubmatch(log, -1) {
		n, err := strconv.Atoi(m[1])
		if err != nil || seen[n] {
			continue
		}
		seen[n] = true
		lines = append(lines, n)
		if len(lines) == 16 {
			break
		}
	}
	return lines
}
