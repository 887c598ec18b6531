package web

// PoisonBodies makes the server overwrite each pooled body buffer when
// its handler gives it back, so that a test sees any use of a request
// body after its request.
func (s *Server) PoisonBodies() { s.bodies.poison = true }

// ActionProperties are the paths of the OpenAPI properties whose enum the
// engine's actions fill in.
var ActionProperties = actionProperties
