package views

import (
	"context"
	"html"
	"io"

	"github.com/a-h/templ"
)

// FormIDField is the hidden field that carries a form's id: a random value
// rendered with the form, by which the server recognises the same form
// submitted twice (a double click, a re-post on reload, a retry after a lost
// answer) and starts its work once.
const FormIDField = "form_id"

type formIDKey struct{}

// WithFormID returns ctx carrying the id of the form a page renders.
func WithFormID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, formIDKey{}, id)
}

// FormID is the id WithFormID put into ctx, or "".
func FormID(ctx context.Context) string {
	s, _ := ctx.Value(formIDKey{}).(string)
	return s
}

// FormIDInput is the hidden form_id field of the form id in ctx (nothing
// without one).
func FormIDInput() templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		id := FormID(ctx)
		if id == "" {
			return nil
		}
		_, err := io.WriteString(w, `<input type="hidden" name="`+FormIDField+`" value="`+html.EscapeString(id)+`">`)
		return err
	})
}
