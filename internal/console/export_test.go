package console

import (
	"maps"
	"slices"
)

// Patterns are the console's mux patterns, for tests that must cover
// every route.
func (c *Console) Patterns() []string {
	var out []string
	for _, rt := range c.routes() {
		out = append(out, rt.pattern)
	}
	return out
}

// SeedActions are the names of a seed page's review actions.
func SeedActions() []string { return slices.Sorted(maps.Keys(seedActions)) }

// RiverUIStyles are the <style> texts River UI's policy allows by hash.
var RiverUIStyles = riverUIStyles
