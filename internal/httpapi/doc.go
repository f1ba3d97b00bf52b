// Package httpapi is the HTTP surface of seedengine: every route in one
// table (routes.go), served on a net/http ServeMux with huma for request
// validation and the OpenAPI 3.1 document.
//
// Every request passes one cheap outer middleware (request id, panic
// recovery, metrics, one access-log line); API routes also pass a
// per-route one (bearer-key auth with ordered scopes, a token-bucket rate
// limit, the body cap).
// Every error, from huma or from a service, is an RFC 9457 problem with a
// stable code from the root package.
//
// The package depends on the root package's interfaces, which
// cmd/seedengine fills with the adapters, and on each batch kind's Plan
// (research, liveness, contract, orchestrate): a queue handler decodes
// the request, calls its kind's Plan, creates the batch and answers 202.
package httpapi
