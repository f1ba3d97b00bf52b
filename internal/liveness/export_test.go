package liveness

// SetBeforeRetry installs a hook that runs after a round that asks for a
// retry, before the wait, so tests can change the simulated web between
// rounds without racing the prober.
func SetBeforeRetry(p *Prober, f func(domain string, round int)) { p.beforeRetry = f }
