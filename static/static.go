// Package static holds the browser assets served from the binary: the vendored
// ECharts and htmx (see vendor/fetch.sh for versions and checksums) and taglens's
// own CSS and JavaScript (with its WebGL layer for the large maps, js/glmap.js).
// Nothing is ever loaded from another host.
package static

import "embed"

// FS is the embedded asset tree; paths are relative to this folder ("vendor/echarts.min.js").
//
//go:embed vendor/*.js vendor/*.LICENSE css/*.css js/*.js favicon.svg
var FS embed.FS
