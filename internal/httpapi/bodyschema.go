package httpapi

import (
	"unicode"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"
)

// bodyNode is what strictJSON needs of a body's schema at one place in
// the document: the exact member names an object has, to refuse a
// spelling that differs only in letter case, and where to go next.
//
// encoding/json fills a struct field from any member whose name equals the
// field's under case folding ("Scope" fills scope), keeping the last;
// every other reader (JavaScript, Python, the schema validator, a proxy)
// takes names as written. A body where the two readings differ is
// refused before any of them reads it: a member whose name folds to a
// field's but is not spelt as the field is (bodyNode), and two members of
// one object whose names fold to the same (strictJSON, every object). Both
// rules come from the route's OpenAPI schema, which huma builds from the
// Go type the body decodes into, so a new route or field is covered
// without a list to keep.
type bodyNode struct {
	fields map[string]*bodyNode // exact member name → its value's node (nil: no checks)
	folded map[string]string    // foldKey(name) → name
	extra  *bodyNode            // node of members not in fields (a map's values)
	items  *bodyNode            // an array's elements
	// url: a string of format "url", read by the URL Standard's parser,
	// which percent-encodes U+0000 (strictJSON lets it through there).
	url bool
}

// member returns the node of member k's value and, when k is not a field
// but folds to one, that field's name.
func (n *bodyNode) member(k string, big bool) (next *bodyNode, canonical string) {
	if n == nil {
		return nil, ""
	}
	if f, ok := n.fields[k]; ok {
		return f, ""
	}
	if !big {
		if c, ok := n.folded[foldKey(k)]; ok {
			return nil, c
		}
	}
	return n.extra, ""
}

func (n *bodyNode) elem() *bodyNode {
	if n == nil {
		return nil
	}
	return n.items
}

// compileBody turns a request body's schema into bodyNodes. A schema that
// names no fields and no element type gets nil: nothing to check there.
func compileBody(reg huma.Registry, s *huma.Schema) *bodyNode {
	return (&bodyCompiler{reg: reg, done: map[*huma.Schema]*bodyNode{}}).node(s)
}

type bodyCompiler struct {
	reg  huma.Registry
	done map[*huma.Schema]*bodyNode
}

func (c *bodyCompiler) node(s *huma.Schema) *bodyNode {
	for s != nil && s.Ref != "" {
		s = c.reg.SchemaFromRef(s.Ref)
	}
	if s == nil {
		return nil
	}
	if n, ok := c.done[s]; ok {
		return n // a recursive schema: the node being built
	}
	n := &bodyNode{}
	c.done[s] = n
	for name, p := range s.Properties {
		if n.fields == nil {
			n.fields = map[string]*bodyNode{}
			n.folded = map[string]string{}
		}
		n.fields[name] = c.node(p)
		n.folded[foldKey(name)] = name
	}
	if ap, ok := s.AdditionalProperties.(*huma.Schema); ok {
		n.extra = c.node(ap)
	}
	n.items = c.node(s.Items)
	// One of several shapes: every field any of them has is a field.
	for _, alt := range append(append(append([]*huma.Schema(nil), s.OneOf...), s.AnyOf...), s.AllOf...) {
		if a := c.node(alt); a != nil {
			for name, f := range a.fields {
				if n.fields == nil {
					n.fields = map[string]*bodyNode{}
					n.folded = map[string]string{}
				}
				n.fields[name] = f
				n.folded[foldKey(name)] = name
			}
			if n.items == nil {
				n.items = a.items
			}
		}
	}
	n.url = s.Type == "string" && s.Format == urlFormat
	if n.fields == nil && n.extra == nil && n.items == nil && !n.url {
		c.done[s] = nil
		return nil
	}
	return n
}

// urlFormat is the schema format of a string that is a URL as the URL
// Standard reads it (https://url.spec.whatwg.org/), which no validator
// checks: an unusable URL is refused as its item, with its reason, by the
// handler that reads it.
const urlFormat = "url"

// foldKey maps s so that foldKey(a) == foldKey(b) exactly when
// strings.EqualFold(a, b): the comparison encoding/json uses to match
// member names to struct fields. ASCII letters become lower case; any
// other rune the smallest rune of its simple case-folding orbit, lowered
// when that is an ASCII letter (k, K and the Kelvin sign are all k).
func foldKey(s string) string {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			plain = false
			break
		}
	}
	if plain {
		return s // the common case: a lower-case ASCII name is its own fold
	}
	b := make([]byte, 0, len(s))
	for _, r := range s {
		if r >= utf8.RuneSelf {
			r = smallestFold(r)
		}
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		b = utf8.AppendRune(b, r)
	}
	return string(b)
}

// smallestFold is the smallest rune of r's simple case-folding orbit.
func smallestFold(r rune) rune {
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	return least
}

// requestBodyNode is the checks of rt's documented request body, nil when
// it documents none (any body sent there still gets strictJSON's
// schema-free checks).
func requestBodyNode(oapi *huma.OpenAPI, rt *route) *bodyNode {
	op := findOperation(oapi, rt)
	if op == nil || op.RequestBody == nil {
		return nil
	}
	for _, ct := range []string{"application/json", "application/merge-patch+json"} {
		if mt := op.RequestBody.Content[ct]; mt != nil && mt.Schema != nil {
			return compileBody(oapi.Components.Schemas, mt.Schema)
		}
	}
	return nil
}

// numberParams are the names of rt's query parameters of type number.
func numberParams(oapi *huma.OpenAPI, rt *route) []string {
	op := findOperation(oapi, rt)
	if op == nil {
		return nil
	}
	var out []string
	for _, p := range op.Parameters {
		if p.In == "query" && p.Schema != nil && p.Schema.Type == "number" {
			out = append(out, p.Name)
		}
	}
	return out
}
