package perf

func buildOf(dep Deployment) Build {
	b := Build{Version: dep.DaprVersion()}
	if p, ok := dep.(daprdPather); ok {
		b.Daprd = p.DaprdPath()
	}
	return b
}
