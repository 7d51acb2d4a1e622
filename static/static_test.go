package static

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"testing"
)

// The vendored files must be the pinned, unmodified npm files. The digests are of the
// files extracted by vendor/fetch.sh from the checksummed tarballs.
func TestVendoredAssets(t *testing.T) {
	want := map[string]string{
		"vendor/echarts.min.js":  "bf4a223524e40b77c304bec67e1222cf551f14880cf42c69dc046558e11c07b1",
		"vendor/htmx.min.js":     "d6fdc75f204e6bdefa99b69bf1e6d4ac69b8a364f77929f45c13476b4000f717",
		"vendor/htmx-ext-sse.js": "3b5992a541619babefc4c169505af474df5c3039da51e59b96ccf9241ecd61d2",
	}
	for name, digest := range want {
		b, err := fs.ReadFile(FS, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != digest {
			t.Errorf("%s: sha256 %s, want %s (re-run vendor/fetch.sh)", name, got, digest)
		}
	}
}
