package textlist

import (
	"reflect"
	"testing"
)

func TestSplit(t *testing.T) {
	for in, want := range map[string][]string{
		"":             nil,
		" , ,":         nil,
		"a":            {"a"},
		" a, b ,,c ,":  {"a", "b", "c"},
		"rock,hip hop": {"rock", "hip hop"},
	} {
		if got := Split(in); !reflect.DeepEqual(got, want) {
			t.Errorf("Split(%q) = %q, want %q", in, got, want)
		}
	}
}
