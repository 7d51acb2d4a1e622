package server

import (
	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/static"
)

// routes builds the echo instance with every route of the app.
// Kept in one function: the order of the middleware and route registrations
// matters, and one list shows it at a glance.
func (s *Server) routes() *echo.Echo {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = s.errorHandler
	e.Use(s.deadlines) // first: the body's clock and the answer's write deadline
	e.Use(s.recoverPanics)
	e.Use(s.requestLog)
	e.Use(securityHeaders)
	// docs/security.md: the order matters only in which refusal a request meets first.
	e.Use(s.checkHost)
	e.Use(s.checkAccessToken)
	e.Use(s.checkCrossSite)
	e.Use(s.pageCSRF)

	upload := bodyLimit(s.cfg.MaxUpload)
	small := bodyLimit(1 << 20)
	// State-changing JSON API routes: bodies must be application/json.
	jsonSmall := []echo.MiddlewareFunc{small, requireJSON}
	// Page forms: the CSRF token, read after the body limit is in place.
	formSmall := []echo.MiddlewareFunc{small, s.requireCSRF}

	// Static assets from the binary.
	assets := staticHandler(static.FS)
	e.GET("/static/*", assets.handle)
	// Browsers ask for /favicon.ico by themselves; the layout links the SVG too.
	e.GET("/favicon.ico", func(c echo.Context) error {
		return assets.serve(c.Response(), c.Request(), "favicon.svg")
	})

	// JSON API (docs/api.md).
	api := e.Group("/api")
	corp := &corporaAPI{s}
	api.POST("/corpora", corp.create, upload) // multipart: uploadCorpus checks the type
	api.GET("/corpora", corp.list)
	api.GET("/corpora/:id", corp.get)
	api.DELETE("/corpora/:id", corp.delete, requireJSON)
	api.GET("/corpora/:id/tags", corp.tags)
	api.GET("/uploads", corp.listUploads)
	api.GET("/uploads/:id", corp.getUpload)

	mod := &modelsAPI{s}
	api.POST("/models", mod.create, jsonSmall...)
	api.GET("/models", mod.list)
	api.GET("/models/:id", mod.get)
	api.DELETE("/models/:id", mod.delete, requireJSON)
	api.GET("/models/:id/file", mod.file)
	api.GET("/models/:id/projector", mod.projector)
	api.POST("/models/:id/restart", mod.restart, jsonSmall...)
	api.POST("/models/:id/prime", mod.prime, jsonSmall...)
	api.POST("/models/:id/embed", mod.embed, jsonSmall...)
	// A map's GET only reads it; its POST computes it (mapcompute.go).
	api.GET("/models/:id/map", mod.mapPoints)
	api.POST("/models/:id/map", mod.computeMapPoints, jsonSmall...)
	api.GET("/models/:id/context-map", mod.contextMap)
	api.POST("/models/:id/context-map", mod.computeContextMap, jsonSmall...)
	api.GET("/models/:id/neighbours", mod.neighbours)
	api.GET("/models/:id/space", mod.spaceMap)
	api.POST("/models/:id/space", mod.computeSpaceMap, jsonSmall...)
	api.GET("/models/:id/space/neighbours", mod.spaceNeighbours)
	api.GET("/models/:id/instances", mod.instanceMap)
	api.POST("/models/:id/instances", mod.computeInstanceMap, jsonSmall...)
	api.GET("/models/:id/instances/docs", mod.instanceDocs)
	api.POST("/models/:id/space/neighbours", mod.computeSpaceNeighbours, jsonSmall...)
	api.GET("/models/:id/tags", mod.tags)

	grp := &groupsAPI{s}
	api.POST("/groups", grp.create, jsonSmall...)
	api.GET("/groups", grp.list)
	api.GET("/groups/:id", grp.get)
	api.DELETE("/groups/:id", grp.delete, requireJSON)

	jobs := &jobsAPI{s}
	api.GET("/jobs", jobs.list)
	api.GET("/jobs/:id", jobs.get)
	api.GET("/jobs/:id/events", jobs.events)
	api.DELETE("/jobs/:id", jobs.cancel, requireJSON)

	ev := &evalsAPI{s}
	api.POST("/evaluations", ev.create, jsonSmall...)
	api.GET("/evaluations", ev.list)
	api.GET("/evaluations/:id", ev.get)

	// Pages.
	p := &pages{s}
	e.GET("/", p.home)
	e.GET("/corpora", p.corpora)
	e.POST("/corpora", p.upload, upload, s.requireCSRF)
	e.GET("/corpora/:id", p.corpus)
	e.DELETE("/corpora/:id", p.deleteCorpus, s.requireCSRF)
	e.GET("/train", p.train)
	e.POST("/train", p.startTraining, formSmall...)
	e.GET("/models", p.models)
	e.GET("/models/:id", p.model)
	e.GET("/groups/:id", p.group)
	e.DELETE("/groups/:id", p.deleteGroup, s.requireCSRF)
	e.GET("/explorer", p.explorer)
	e.POST("/explorer", p.exploreCompute, formSmall...)
	e.GET("/priming", p.priming)
	e.GET("/compare", p.compare)
	e.POST("/compare", p.startCompare, formSmall...)
	e.GET("/compare/side", p.sideBySide)
	e.GET("/compare/:id", p.evaluation)
	return e
}
