package lang

// A program's own modules: Python files beside the program's file that it
// imports from (`from utils.benchmark import report_benchmark`, NVIDIA's
// samples; `from .utils import next_power_of_2`, TileGym's ops). Python
// finds them through sys.path[0], the script's directory. Host code
// (runtime/host) and kernels (ir/build) load them with the same rules, so
// both find the same file.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ModuleFile is the file of the module that a `from M import x` names by
// its path ("utils.benchmark.x", ".utils.x"), if it is a Python file in
// the directory tree of program (the importing file's path); "" otherwise
// (a package tilec does not have, no such file, or `from . import m`).
func ModuleFile(program, path string) string {
	dots := len(path) - len(strings.TrimLeft(path, "."))
	i := strings.LastIndex(path, ".")
	if i <= dots-1 {
		return "" // `from . import m`: a module as a value (ModuleOf)
	}
	return ModuleOf(program, path[:i])
}

// ModuleOf is the file of module mod ("utils", "utils.benchmark",
// ".utils", the module itself, as `import utils` and `from . import
// utils` name it) if it is a Python file in the directory tree of program;
// "" otherwise.
func ModuleOf(program, mod string) string {
	if program == "" {
		return ""
	}
	dots := len(mod) - len(strings.TrimLeft(mod, "."))
	mod = mod[dots:]
	if mod == "" {
		return ""
	}
	dir := filepath.Dir(program)
	for range max(dots-1, 0) {
		dir = filepath.Dir(dir)
	}
	file := filepath.Join(append([]string{dir}, strings.Split(mod, ".")...)...) + ".py"
	if fi, err := os.Stat(file); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	return file
}

// ReadModule reads a module's source: a regular file of at most
// MaxSourceSize bytes.
func ReadModule(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	src, err := io.ReadAll(io.LimitReader(f, MaxSourceSize+1))
	if err != nil {
		return nil, err
	}
	if len(src) > MaxSourceSize {
		return nil, fmt.Errorf("%s: more than %d bytes", path, MaxSourceSize)
	}
	return src, nil
}
