package web

// PoisonBodies makes the server overwrite each pooled body buffer when
// its handler gives it back, so that a test sees any use of a request
// body after its request.
func (s *Server) PoisonBodies() { s.bodies.poison = true }

// DerivedEnumPaths are the paths of the OpenAPI properties whose enum the
// sandbox fills in from its Go definition.
func DerivedEnumPaths() [][]string {
	var paths [][]string
	for _, d := range derivedEnums() {
		paths = append(paths, d.path)
	}
	return paths
}
