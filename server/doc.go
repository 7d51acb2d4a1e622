// Package server is the taglens web app: echo routes, handlers, background jobs with
// server-sent progress and chart builders, on the SQLite store of package
// server/store.
//
// # Architecture
//
// New(cfg, deps, log) builds the app on a store.Store (store.Open: SQLite in the data
// directory, schema migrations counted in schema_version, model files written
// atomically under models/). Every route is in routes.go. Long work (training,
// t-SNE maps, evaluations) runs as jobs (package server/jobs, a jobs.Runner) in two lanes, trainings and the
// rest, each running at most Config.TrainSlots at a time (default one per
// CPU), the rest queued with their place in the queue; so a map never waits
// for a training. Progress is stored and fanned out
// to subscribers through per-subscriber buffered channels that only the manager
// closes (a slow subscriber misses updates instead of blocking the job). Jobs
// still queued or running when the process stopped are marked interrupted at the
// next start, and their models can be restarted. Shutdown stops the HTTP server,
// ends event streams, cancels jobs (interrupted) and waits for them.
//
// Pages are templ components (package views) rendered through one helper; charts
// are go-echarts' typed options (charts.go), which views.ChartBox encodes once
// with templ.JSONScript and static/js/app.js hands to echarts.init/setOption;
// live updates call setOption on the same chart. No page loads anything from
// another host (a Content-Security-Policy enforces it).
//
// # JSON API
//
// docs/api.md is the full reference with curl examples for every route. Errors
// are {"error": "..."} with a 4xx/5xx status, chosen in one place (errors.go,
// errStatus) from the error's kind.
//
//	POST   /api/corpora                 multipart "file" (+ "name", "format" before it, or as query) → 201 {"id","name","docs","tags","format"}
//	                                    400 with the line number on malformed input (nothing stored), 413 over --max-upload
//	GET    /api/corpora                 list
//	GET    /api/corpora/{id}            + "tag_counts" (the 300 most used, descending), "tag_use_tail", "cardinality" (documents per tag count), "mean_tags", "split"
//	DELETE /api/corpora/{id}            204; 409 while a model uses it
//	GET    /api/corpora/{id}/tags?q=&limit=   tag autocomplete (prefix matches first, most used first)
//	GET    /api/uploads[/{id}]          uploads under way (stage, bytes received and unpacked, documents read),
//	                                    under the X-Upload-Id header or upload_id parameter of the POST
//	POST   /api/models                  {"corpus_id","name"?,"seed"?,"params"?} → 202 {"model_id","job_id"}
//	GET    /api/models, /api/models/{id}      (detail adds "log" training curve and "info" training record)
//	DELETE /api/models/{id}             204; 409 while training
//	GET    /api/models/{id}/file        the model file (download)
//	POST   /api/models/{id}/restart     retrain an interrupted or failed model → 202 {"model_id","job_id"}
//	POST   /api/models/{id}/prime       {"tags":[…],"k"?:10,"variant"?:"siamese-ce"|"ce"} → {"oov","extended":[{"term","distance","in_doc"}],"per_term","matched"?,"suggestions"?} (tags matched exactly, else ignoring case)
//	POST   /api/models/{id}/embed       {"tags":[…],"variant"?} → {"vectors":{"tag":[…]},"oov":[…]}
//	GET    /api/models/{id}/map?term=T[&docs=ID,ID][&corpus=ID,ID][&variant=]
//	                                    → {"points":[{"x","y","term","doc_id","kind","corpus","cluster","tags"}],"kl"};
//	                                    202 {"job_id"} while the t-SNE job computes it (then it is cached)
//	GET    /api/models/{id}/context-map?doc=ID[&corpus=][&term=OOV][&variant=]
//	                                    → the same map shape: the paper's Figure 7 (kinds positive, negative, oov, oov-avg)
//	GET    /api/models/{id}/neighbours?term=T&doc=ID[&corpus=][&k=]   nearest terms of CE(T|doc)
//	GET    /api/models/{id}/tags?q=     autocomplete over the model's corpus
//	GET    /api/jobs[?kind=], /api/jobs/{id}  {"id","kind","state","progress","stage","message","eta_seconds"}
//	GET    /api/jobs/{id}/events        text/event-stream: "progress" events (job JSON + "point" of the training curve), then "end"
//	DELETE /api/jobs/{id}               cancel → 200 with the final state; 409 if already finished
//	POST   /api/evaluations             {"model_ids","corpus_id"?,"subset"?,"protocol"?,"baselines"?,"setting"?,"missing"?,"trials"?} → 202 {"evaluation_id","job_id"}
//	                                    baselines: the eight of §6.2.5 and ppmi-svd, glove, ease, ease-score, rp3beta, itemknn (baselines.Names) or ["all"], skipped per baselines.Skip with a note
//	GET    /api/evaluations             list
//	GET    /api/evaluations/{id}        the eval report JSON (ml/eval.Report); 202 with the job while it runs
//
// Examples:
//
//	curl -F file=@docs.tsv http://127.0.0.1:8080/api/corpora
//	curl -d '{"corpus_id":"ID","params":{"max_epochs1":10}}' http://127.0.0.1:8080/api/models
//	curl -N http://127.0.0.1:8080/api/jobs/JOB/events
//	curl -d '{"tags":["rock","guitar"],"k":5}' http://127.0.0.1:8080/api/models/MODEL/prime
//	curl 'http://127.0.0.1:8080/api/models/MODEL/map?term=guitar'
//	curl -d '{"model_ids":["MODEL"],"baselines":["random","lda"],"trials":3}' http://127.0.0.1:8080/api/evaluations
package server
