// Command tilec compiles and runs tile kernels.
//
// A file runs in three ways:
//
//	tilec run FILE                     its if __name__ == "__main__": block, as Python would
//	tilec run FILE --entry FUNC ...    its host launch function FUNC
//	tilec run FILE --kernel NAME ...   one kernel, with --arg signatures, -D constants and --grid
//
// and tilec compile, bench, tune, plot and cache do the rest; `tilec --help`
// lists them, and `tilec CMD --help` shows a command's flags and examples
// (help.go; the examples run in TestHelpExamplesRun).
//
// The command is a thin layer over the packages: lang parses, ir builds and
// verifies, lower and ptxgen produce PTX, runtime executes (the CPU
// interpreter everywhere, CUDA when built with -tags cuda).
package main
