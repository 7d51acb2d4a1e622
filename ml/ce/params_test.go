package ce

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestParamsMatchConfig: the documented parameters and the fields of Config
// that carry a `param` tag are the same set, each field's JSON key is its
// parameter's name (but for max_time, given in seconds by the API), and every
// other field stays out of JSON, so the API, the flags and the form cannot
// drift from Config.
func TestParamsMatchConfig(t *testing.T) {
	var tagged []string
	for _, f := range reflect.VisibleFields(reflect.TypeFor[Config]()) {
		if !f.IsExported() {
			continue
		}
		name := f.Tag.Get("param")
		key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "" && key != "-":
			t.Errorf("field %s: not a documented parameter, but its JSON key is %q (want \"-\")", f.Name, key)
		case name == "max_time" && key != "-":
			t.Errorf("field %s: JSON key %q, want \"-\" (the API takes seconds)", f.Name, key)
		case name != "" && name != "max_time" && key != name:
			t.Errorf("field %s: JSON key %q, want its parameter's name %q", f.Name, key, name)
		}
		if name != "" {
			tagged = append(tagged, name)
		}
	}
	var documented []string
	for _, p := range Params {
		documented = append(documented, p.Name)
		if p.Flag != FlagName(p.Name) {
			t.Errorf("parameter %s: flag %q, want %q", p.Name, p.Flag, FlagName(p.Name))
		}
		if p.Label == "" || p.Default == "" || p.Help == "" {
			t.Errorf("parameter %s: label, default and help must all be given", p.Name)
		}
	}
	slices.Sort(tagged)
	slices.Sort(documented)
	if !slices.Equal(tagged, documented) {
		t.Errorf("tagged fields %v, documented parameters %v", tagged, documented)
	}
}

// TestConfigSet: Set parses each kind of parameter, refuses bad text with a
// ParamError naming the parameter, and the result goes through JSON under
// the parameter's name.
func TestConfigSet(t *testing.T) {
	var c Config
	for _, s := range [][2]string{
		{"hidden", " 64, 32,8 "}, {"topics", "12"}, {"learning_rate", "0.01"}, {"early_stop", EarlyStopP2},
		{"max_time", "90"}, {"pretrain_iterations", "-1"}, {"term_smooth", "-1"},
	} {
		if err := c.Set(s[0], s[1]); err != nil {
			t.Fatalf("Set(%q, %q): %v", s[0], s[1], err)
		}
	}
	want := Config{Hidden: []int{64, 32, 8}, Topics: 12, LearningRate: 0.01, EarlyStop: EarlyStopP2,
		MaxTime: 90 * time.Second, PretrainIterations: -1, TermSmooth: -1}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got %+v, want %+v", c, want)
	}
	if err := c.Set("max_time", "1m30s"); err != nil || c.MaxTime != 90*time.Second {
		t.Errorf("Set(max_time, 1m30s): %v, %v", c.MaxTime, err)
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	const wantJSON = `{"topics":12,"hidden":[64,32,8],"learning_rate":0.01,"pretrain_iterations":-1,"early_stop":"priming-p2","term_smooth":-1}`
	if string(b) != wantJSON {
		t.Errorf("JSON %s, want %s", b, wantJSON)
	}
	for _, s := range [][2]string{
		{"topics", "twelve"}, {"hidden", "64,,8"}, {"alpha", "0.1x"}, {"max_time", "soon"}, {"max_time", "-5"}, {"momentum", "0.5"},
	} {
		err := c.Set(s[0], s[1])
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Param != s[0] {
			t.Errorf("Set(%q, %q): got %v, want a ParamError for %s", s[0], s[1], err, s[0])
		}
	}
}
