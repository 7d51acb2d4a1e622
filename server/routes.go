package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/static"
)

// routes builds the echo instance with every route of the app.
func (s *Server) routes() *echo.Echo {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = s.errorHandler
	e.Use(s.recoverPanics)
	e.Use(s.requestLog)
	e.Use(securityHeaders)

	upload := bodyLimit(s.cfg.MaxUpload)
	small := bodyLimit(1 << 20)

	// Static assets from the binary.
	e.GET("/static/*", echo.WrapHandler(http.StripPrefix("/static/", staticHandler(static.FS))))

	// JSON API (docs/api.md).
	api := e.Group("/api")
	corp := &corporaAPI{s}
	api.POST("/corpora", corp.create, upload)
	api.GET("/corpora", corp.list)
	api.GET("/corpora/:id", corp.get)
	api.DELETE("/corpora/:id", corp.delete)
	api.GET("/corpora/:id/tags", corp.tags)

	mod := &modelsAPI{s}
	api.POST("/models", mod.create, small)
	api.GET("/models", mod.list)
	api.GET("/models/:id", mod.get)
	api.DELETE("/models/:id", mod.delete)
	api.GET("/models/:id/file", mod.file)
	api.POST("/models/:id/restart", mod.restart, small)
	api.POST("/models/:id/prime", mod.prime, small)
	api.POST("/models/:id/embed", mod.embed, small)
	api.GET("/models/:id/map", mod.mapPoints)
	api.GET("/models/:id/context-map", mod.contextMap)
	api.GET("/models/:id/neighbours", mod.neighbours)
	api.GET("/models/:id/tags", mod.tags)

	jobs := &jobsAPI{s}
	api.GET("/jobs", jobs.list)
	api.GET("/jobs/:id", jobs.get)
	api.GET("/jobs/:id/events", jobs.events)
	api.DELETE("/jobs/:id", jobs.cancel)

	ev := &evalsAPI{s}
	api.POST("/evaluations", ev.create, small)
	api.GET("/evaluations", ev.list)
	api.GET("/evaluations/:id", ev.get)

	// Pages.
	p := &pages{s}
	e.GET("/", p.home)
	e.GET("/corpora", p.corpora)
	e.POST("/corpora", p.upload, upload)
	e.GET("/corpora/:id", p.corpus)
	e.GET("/train", p.train)
	e.POST("/train", p.startTraining, small)
	e.GET("/models", p.models)
	e.GET("/models/:id", p.model)
	e.GET("/explorer", p.explorer)
	e.GET("/priming", p.priming)
	e.GET("/compare", p.compare)
	e.POST("/compare", p.startCompare, small)
	e.GET("/compare/:id", p.evaluation)
	return e
}
