//go:build !race

package ce

// raceEnabled is true under the race detector, which slows training ~10×.
const raceEnabled = false
