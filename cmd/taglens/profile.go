package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startCPUProfile starts a CPU profile written to path (--cpuprofile of train
// and eval) and returns the function that stops it and closes the file, which
// returns the error of closing it.
func startCPUProfile(path string) (stop func() error, err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		return nil
	}, nil
}

// closeWith calls close (deferred) and sets *err to its error when *err is nil.
func closeWith(close func() error, err *error) {
	if cerr := close(); cerr != nil && *err == nil {
		*err = cerr
	}
}
