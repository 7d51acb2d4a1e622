// Package atomicfile writes files so that a reader, or the next start after a
// crash, sees either the old content or all of the new one, never a mix: the
// data goes to a temporary file in the same directory, which is synced, closed,
// given its permissions and renamed over the destination, and the directory is
// synced. The model files, the app's data files and the CLI's reports are all
// written through it.
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"strings"
)

// tmpMark is in the name of every temporary file: "." + base + tmpMark + random.
const tmpMark = ".tmp-"

// Write writes what write produces to path with permissions perm and returns
// the number of bytes written. On any error the temporary file is removed and
// path is left as it was.
func Write(path string, perm os.FileMode, write func(w io.Writer) error) (n int64, err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+tmpMark+"*")
	if err != nil {
		return 0, err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	cw := &countWriter{w: f}
	if err = write(cw); err != nil {
		return 0, err
	}
	if err = f.Sync(); err != nil {
		return 0, err
	}
	if err = f.Close(); err != nil {
		return 0, err
	}
	// CreateTemp makes the file 0600; the destination gets the caller's mode.
	if err = os.Chmod(tmp, perm); err != nil {
		return 0, err
	}
	if err = os.Rename(tmp, path); err != nil {
		return 0, err
	}
	if d, derr := os.Open(dir); derr == nil {
		d.Sync() // best effort: not every file system syncs a directory
		d.Close()
	}
	return cw.n, nil
}

// WriteBytes writes data to path atomically with permissions perm.
func WriteBytes(path string, perm os.FileMode, data []byte) error {
	_, err := Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	return err
}

// IsTemp reports whether name (a base name) is a temporary file of Write.
func IsTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, tmpMark)
}

// RemoveLeftovers removes the temporary files a process that died while
// writing left in dir and returns how many there were. Call it only when no
// other process may be writing into dir.
func RemoveLeftovers(dir string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return 0, nil
		}
		return 0, err
	}
	n := 0
	for _, e := range entries {
		if e.Type().IsRegular() && IsTemp(e.Name()) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !os.IsNotExist(err) {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
