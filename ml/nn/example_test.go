package nn_test

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/taglens/taglens/ml/nn"
)

// Stage 1 in miniature: a tanh network learns, from a term's one-hot input,
// the Bag-of-Words of the documents it occurs in (the ±1 targets of Eq. 5),
// by mini-batch SGD on the gradients of Trainer.
func ExampleTrainer() {
	terms := []string{"rock", "guitar", "drums", "jazz", "piano", "swing"}
	v := len(terms)
	x := mat.NewDense(v, v, nil) // row τ: the one-hot vector of term τ
	targets := make([]nn.Target, v)
	for tau := range v {
		x.Set(tau, tau, 1)
		style := tau / 3 * 3 // the three terms of its style
		targets[tau] = nn.Target{Idx: []int{style, style + 1, style + 2}}
	}
	net := nn.NewMLP([]int{v, 4, v}, rand.New(rand.NewPCG(1, 2)))
	tr := nn.NewTrainer(net, v)
	sgd := nn.SGD{LearningRate: 0.5}
	grad := make([]float64, len(net.Params))
	first := tr.PredictionGrad(x, targets, grad)
	var last float64
	for range 300 {
		last = tr.PredictionGrad(x, targets, grad)
		sgd.Step(net.Params, grad)
	}
	fmt.Printf("loss %.2f → %.2f\n", first, last) // Eq. 5 falls below zero as ŷ nears ±1

	ws := nn.NewWorkspace(net.Sizes, v)
	net.ForwardTo(ws, x, net.Layers())
	yhat := ws.Out(net.Layers())
	for _, tau := range []int{0, 4} {
		var on []string
		for j := range v {
			if yhat.At(tau, j) > 0 {
				on = append(on, terms[j])
			}
		}
		fmt.Printf("%s → %s\n", terms[tau], strings.Join(on, " "))
	}
	// Output:
	// loss 0.02 → -0.34
	// rock → rock guitar drums
	// piano → jazz piano swing
}
