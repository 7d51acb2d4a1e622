package views

import (
	"fmt"
	"strings"
)

// trainingNames names the models of ms still training ("" when none).
func trainingNames(ms []Model) string {
	var names []string
	for _, m := range ms {
		if m.State == "training" {
			names = append(names, "“"+m.Name+"”")
		}
	}
	return strings.Join(names, ", ")
}

// withModelsLabel is the text of the "delete with its models" button.
func withModelsLabel(n int) string {
	if n == 1 {
		return "Delete the corpus with its model"
	}
	return fmt.Sprintf("Delete the corpus with its %d models", n)
}

// withModelsConfirm is the question the browser asks before deleting a
// corpus with its models, naming them.
func withModelsConfirm(vm CorpusInUseView) string {
	names := make([]string, len(vm.Models))
	for i, m := range vm.Models {
		names[i] = "“" + m.Name + "”"
	}
	what := "its model " + names[0]
	if len(names) > 1 {
		what = fmt.Sprintf("its %d models %s", len(names), strings.Join(names, ", "))
	}
	return fmt.Sprintf("Delete the corpus “%s” and %s? The models' files and maps are deleted too; evaluations keep their results.", vm.Corpus.Name, what)
}
