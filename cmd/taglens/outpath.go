package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// The output paths of a command are checked before it reads any input, so a
// wrong --out fails at once instead of after the training or evaluation it
// was to hold (issue 30, 7).

// An output is one output path of a command: the flag that names it, the
// path, and whether it is a folder (export --out, report --charts) rather
// than a file. An empty path or "-" (standard output) is not checked.
type output struct {
	flag, path string
	folder     bool
}

// checkOutputs checks every output of a command in turn (checkOutput).
func checkOutputs(outs ...output) error {
	for _, o := range outs {
		if err := checkOutput(o); err != nil {
			return err
		}
	}
	return nil
}

// checkOutput checks that an output can be written: a file's path is not a
// folder, and its folder exists and takes a new file (the file is written to
// a temporary file there and renamed); a folder's path is a folder that takes
// a new file, or does not exist yet and its nearest existing parent is a
// folder that takes a new entry (the command creates it with its parents).
// The error names the flag and the path.
func checkOutput(o output) error {
	if o.path == "" || o.path == "-" {
		return nil
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("--%s %s: %s", o.flag, o.path, fmt.Sprintf(format, a...))
	}
	fi, err := os.Stat(o.path)
	if errors.Is(err, syscall.ENOTDIR) {
		err = fs.ErrNotExist // a parent is a file: said below, by name
	}
	switch {
	case err == nil && o.folder && !fi.IsDir():
		return bad("is a file, not a folder")
	case err == nil && o.folder:
		return probeFolder(o.path, bad)
	case err == nil && fi.IsDir():
		return bad("is a folder: name the file to write")
	case err == nil && !fi.Mode().IsRegular():
		return bad("is not a regular file")
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return bad("%v", unwrapPath(err))
	case o.folder:
		return probeFolder(existingParent(o.path), bad)
	}
	return probeFolder(filepath.Dir(o.path), bad)
}

// existingParent is the nearest parent of path that exists (as anything).
func existingParent(path string) string {
	p := filepath.Clean(path)
	for {
		parent := filepath.Dir(p)
		if parent == p {
			return p
		}
		if _, err := os.Lstat(parent); err == nil {
			return parent
		}
		p = parent
	}
}

// probeFolder checks that dir exists, is a folder and takes a new file, by
// creating and removing one.
func probeFolder(dir string, bad func(string, ...any) error) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return bad("the folder %s does not exist", dir)
	case err != nil:
		return bad("%v", unwrapPath(err))
	case !fi.IsDir():
		return bad("%s is not a folder", dir)
	}
	f, err := os.CreateTemp(dir, ".taglens-probe-*")
	if err != nil {
		return bad("cannot write in %s: %v", dir, unwrapPath(err))
	}
	name := f.Name()
	cerr := f.Close()
	if err := os.Remove(name); err != nil {
		return bad("cannot remove the test file %s: %v", name, err)
	}
	if cerr != nil {
		return bad("cannot write in %s: %v", dir, cerr)
	}
	return nil
}

// unwrapPath drops the *fs.PathError's path (the message names it already).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
