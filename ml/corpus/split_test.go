package corpus

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/taglens/taglens/ml/shareddata"
)

func tinyCorpus() *Corpus {
	return &Corpus{Docs: docs("a|x,y", "b|y", "c|z,x", "d|w")}
}

func TestReadSplit(t *testing.T) {
	c := tinyCorpus()
	got, err := ReadSplit(strings.NewReader("a\ttrain\n\nc\ttest\r\nb\toov\nd\tvalid\n"), c)
	if err != nil {
		t.Fatal(err)
	}
	want := Split{Train: []int{0}, Valid: []int{3}, Test: []int{2}, OOV: []int{1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	var buf bytes.Buffer
	if err := WriteSplit(&buf, c, got); err != nil {
		t.Fatal(err)
	}
	if again, err := ReadSplit(&buf, c); err != nil || !reflect.DeepEqual(again, want) {
		t.Errorf("WriteSplit round trip: got %+v, %v, want %+v", again, err, want)
	}
	for _, tc := range []struct{ name, in, want string }{
		{"unknown id", "a\ttrain\nzz\ttest\n", `line 2: unknown document id "zz"`},
		{"unknown subset", "a\ttrain\nb\tholdout\n", `line 2: unknown subset "holdout"`},
		{"twice", "a\ttrain\na\ttest\n", `line 2: document "a" assigned twice`},
		{"no tab", "a train\n", "line 1: want"},
		{"missing", "a\ttrain\nb\ttest\nc\ttest\n", `document "d" (number 4 of the corpus) has no subset`},
		{"binary", "a\ttr\x00ain\n", "NUL byte"},
		{"empty", "", "corpus: split: split file is empty"},
		{"blank lines", "\n \r\n\t\n", "split file is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadSplit(strings.NewReader(tc.in), c)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestReadOOVTags(t *testing.T) {
	got, err := ReadOOVTags(strings.NewReader("cello\n\n harp \r\ncello\nbass guitar\n"))
	if want := []string{"cello", "harp", "bass guitar"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, %v, want %q", got, err, want)
	}
	var pe *ParseError
	if _, err := ReadOOVTags(strings.NewReader("ok\n\xff\n")); !errors.As(err, &pe) || pe.Line != 2 {
		t.Errorf("got %v, want a ParseError on line 2", err)
	}
	for _, tc := range []struct {
		in   string
		line int
		want string
	}{
		{"ok\n\n" + strings.Repeat("o", 300) + "\n", 3, "corpus: oov tags: line 3: tag of 300 bytes (limit 256)"},
		{"ok\n" + strings.Repeat("é", 128) + "\n", 0, ""}, // exactly 256 bytes
		{"ok\nb\ael\n", 2, "line 2: tag \"b\\ael\" holds the control character U+0007"},
		{"a\u202eb\n", 1, "bidirectional formatting character U+202E"},
	} {
		_, err := ReadOOVTags(strings.NewReader(tc.in))
		if tc.want == "" {
			if err != nil {
				t.Errorf("%q: %v", cut(tc.in), err)
			}
			continue
		}
		if !errors.As(err, &pe) || pe.Line != tc.line || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want line %d and %q", cut(tc.in), err, tc.line, tc.want)
		}
	}
	c := tinyCorpus()
	if got, want := c.AbsentTags([]string{"z", "nosuch", "x", "nosuch", "other"}), []string{"nosuch", "other"}; !reflect.DeepEqual(got, want) {
		t.Errorf("AbsentTags: got %q, want %q", got, want)
	}
	if got := c.AbsentTags(nil); got != nil {
		t.Errorf("AbsentTags(nil) = %q", got)
	}
}

func TestRandomSplit(t *testing.T) {
	c := &Corpus{}
	for i := range 100 {
		tags := []string{"common"}
		if i%10 == 3 {
			tags = append(tags, "reserved")
		}
		c.Docs = append(c.Docs, Document{ID: string(rune('A' + i)), Tags: tags})
	}
	s := RandomSplit(c, []string{"reserved", "absent"}, 0, 42)
	// 10 documents hold "reserved"; of the other 90, round(60) train; 30 left →
	// DefaultValidSize(30) = round(7.5) = 8 valid; 22 test.
	if len(s.OOV) != 10 || len(s.Train) != 60 || len(s.Valid) != 8 || len(s.Test) != 22 {
		t.Fatalf("got sizes oov %d train %d valid %d test %d, want 10 60 8 22", len(s.OOV), len(s.Train), len(s.Valid), len(s.Test))
	}
	all := slices.Concat(s.Train, s.Valid, s.Test, s.OOV)
	slices.Sort(all)
	for i, j := range all {
		if i != j {
			t.Fatalf("split is not a partition: position %d holds %d", i, j)
		}
	}
	for _, sub := range []Subset{Train, Valid, Test, OOV} {
		if !slices.IsSorted(s.Of(sub)) {
			t.Errorf("%s not sorted", sub)
		}
		for _, i := range s.Of(sub) {
			if has := slices.Contains(c.Docs[i].Tags, "reserved"); has != (sub == OOV) {
				t.Errorf("doc %d in %s: holds reserved = %v", i, sub, has)
			}
		}
	}
	if again := RandomSplit(c, []string{"reserved"}, 0, 42); !reflect.DeepEqual(again, s) {
		t.Error("same seed gave a different split")
	}
	if other := RandomSplit(c, []string{"reserved"}, 0, 43); reflect.DeepEqual(other.Train, s.Train) {
		t.Error("seeds 42 and 43 gave the same training set")
	}
	if s5 := RandomSplit(c, nil, 5, 1); len(s5.Valid) != 5 || len(s5.OOV) != 0 {
		t.Errorf("validN 5: got %d valid, %d oov, want 5, 0", len(s5.Valid), len(s5.OOV))
	}
	if sBig := RandomSplit(c, nil, 1000, 1); len(sBig.Valid) != 33 || len(sBig.Test) != 0 {
		t.Errorf("validN 1000: got %d valid, %d test, want all 33 left, 0", len(sBig.Valid), len(sBig.Test))
	}
}

func TestDefaultValidSize(t *testing.T) {
	// Paper §5.2 sizes: CAL500 167 left → 42 (paper: 40); MagTag5K 1,275 left → 300.
	for n, want := range map[int]int{0: 0, 1: 0, 2: 1, 3: 1, 167: 42, 1275: 300, 100000: 300} {
		if got := DefaultValidSize(n); got != want {
			t.Errorf("DefaultValidSize(%d): got %d, want %d", n, got, want)
		}
	}
}

func TestDropTagsAndTrainVocabulary(t *testing.T) {
	c := tinyCorpus()
	got := DropTags(c.Docs, []string{"x", "w"})
	want := []Document{{"a", []string{"y"}}, {"b", []string{"y"}}, {"c", []string{"z"}}, {"d", []string{}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if c.Docs[0].Tags[0] != "x" {
		t.Error("DropTags modified its input")
	}
	v := TrainVocabulary(c, Split{Train: []int{0, 2}})
	if want := []string{"x", "y", "z"}; !reflect.DeepEqual(v.Terms(), want) {
		t.Errorf("got %q, want %q", v.Terms(), want)
	}
}

// TestSharedSplits checks the split files of ../shared/data against the subset sizes
// their SOURCE.md states, and RandomSplit's OOV reservation against mtg-jamendo's
// (SOURCE.md: every document holding one of the 22 tags is oov: 17,094).
func TestSharedSplits(t *testing.T) {
	for _, tc := range []struct {
		corpus                       string
		train, valid, test, oovCount int
	}{
		{"mtg-jamendo", 25621, 300, 12510, 17094},
		{"cal500", 335, 40, 127, 0},
		{"corel5k", 3333, 300, 1367, 0},
	} {
		t.Run(tc.corpus, func(t *testing.T) {
			c, err := ReadFile(shareddata.File(t, tc.corpus, "docs.tsv"), ParseOptions{})
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(shareddata.File(t, tc.corpus, "split.tsv"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			s, err := ReadSplit(f, c)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Train) != tc.train || len(s.Valid) != tc.valid || len(s.Test) != tc.test || len(s.OOV) != tc.oovCount {
				t.Errorf("got %d/%d/%d/%d, want %d/%d/%d/%d", len(s.Train), len(s.Valid), len(s.Test), len(s.OOV),
					tc.train, tc.valid, tc.test, tc.oovCount)
			}
			if tc.oovCount == 0 {
				return
			}
			of, err := os.Open(shareddata.File(t, tc.corpus, "oov_tags.txt"))
			if err != nil {
				t.Fatal(err)
			}
			defer of.Close()
			oov, err := ReadOOVTags(of)
			if err != nil || len(oov) != 22 {
				t.Fatalf("got %d OOV tags, %v, want 22", len(oov), err)
			}
			r := RandomSplit(c, oov, 300, 1)
			if !reflect.DeepEqual(r.OOV, s.OOV) {
				t.Errorf("RandomSplit OOV: got %d documents, want the %d of split.tsv", len(r.OOV), len(s.OOV))
			}
			if len(r.Train) != tc.train || len(r.Valid) != tc.valid || len(r.Test) != tc.test {
				t.Errorf("RandomSplit sizes: got %d/%d/%d, want %d/%d/%d", len(r.Train), len(r.Valid), len(r.Test), tc.train, tc.valid, tc.test)
			}
			v := TrainVocabulary(c, s)
			for _, tag := range oov {
				if _, in := v.ID(tag); in {
					t.Errorf("reserved tag %q is in the training vocabulary", tag)
				}
			}
			if v.Len() != 161 {
				t.Errorf("training vocabulary: got %d tags, want 161 (SOURCE.md)", v.Len())
			}
		})
	}
}

func cut(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
