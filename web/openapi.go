package web

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/gorilla/mux"
	"gopkg.in/yaml.v3"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// openAPISource is the OpenAPI 3.1 document of the sandbox, as kept in the
// repository. Its servers name http://localhost:8080; the served copies name
// the sandbox's public URL instead.
//
//go:embed openapi.yaml
var openAPISource []byte

// apiDocument is the OpenAPI document as served, in both encodings, built
// once at start-up.
type apiDocument struct {
	yaml, json []byte
}

// rootPaths are the paths served at the root whatever the base path; the
// document gives them their own servers.
var rootPaths = []string{"/healthz", "/readyz", "/metrics"}

// newAPIDocument rewrites the embedded document's servers to publicURL (and
// the root paths' servers to publicURL without basePath), then encodes it as
// YAML and as JSON with the keys in the document's order. An empty publicURL
// keeps the servers as written.
func newAPIDocument(src []byte, publicURL, basePath string) (apiDocument, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return apiDocument{}, fmt.Errorf("parse openapi.yaml: %w", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return apiDocument{}, errors.New("parse openapi.yaml: not a mapping")
	}
	root := doc.Content[0]
	if err := setDerivedEnums(root, derivedEnums()); err != nil {
		return apiDocument{}, err
	}
	if publicURL != "" {
		setServers(root, publicURL)
		origin := publicURL
		if basePath != "" {
			origin = strings.TrimSuffix(publicURL, basePath)
		}
		if paths := mapValue(root, "paths"); paths != nil {
			for _, p := range rootPaths {
				if item := mapValue(paths, p); item != nil {
					setServers(item, origin)
				}
			}
		}
	}
	var y bytes.Buffer
	enc := yaml.NewEncoder(&y)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return apiDocument{}, fmt.Errorf("encode openapi.yaml: %w", err)
	}
	if err := enc.Close(); err != nil {
		return apiDocument{}, fmt.Errorf("encode openapi.yaml: %w", err)
	}
	var compact, j bytes.Buffer
	if err := scenarios.WriteNodeJSON(&compact, root); err != nil {
		return apiDocument{}, fmt.Errorf("convert openapi.yaml to JSON: %w", err)
	}
	if err := json.Indent(&j, compact.Bytes(), "", "  "); err != nil {
		return apiDocument{}, fmt.Errorf("convert openapi.yaml to JSON: %w", err)
	}
	j.WriteByte('\n')
	return apiDocument{yaml: y.Bytes(), json: j.Bytes()}, nil
}

// mapValue returns the value of key in the mapping m, or nil.
func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// derivedEnum is a property of the document whose enum the sandbox fills
// in from its Go definition, so that a style and its actions are stated
// once: the document leaves the enum out.
type derivedEnum struct {
	path   []string // from the document's root
	values []string
}

// derivedEnums are the headless API's and the page form's actions (every
// style's, from the engine) and the catalogue's ui (every style).
func derivedEnums() []derivedEnum {
	var uis []string
	for _, st := range scenarios.Styles() {
		uis = append(uis, st.UI)
	}
	acts := emulator.ChoiceActions()
	return []derivedEnum{
		{[]string{"components", "schemas", "CompleteRequest", "properties", "action"}, acts},
		{[]string{"paths", "/acs/decision", "post", "requestBody", "content", "application/x-www-form-urlencoded", "schema", "properties", "action"}, acts},
		{[]string{"components", "schemas", "CatalogueEntry", "properties", "ui"}, uis},
	}
}

// setDerivedEnums sets the enum of each of enums.
func setDerivedEnums(root *yaml.Node, enums []derivedEnum) error {
	for _, d := range enums {
		n := root
		for _, k := range d.path {
			if n = mapValue(n, k); n == nil {
				return fmt.Errorf("openapi.yaml has no %s", strings.Join(d.path, "/"))
			}
		}
		if mapValue(n, "enum") != nil {
			return fmt.Errorf("openapi.yaml: %s states an enum, which the sandbox fills in from its Go definition", strings.Join(d.path, "/"))
		}
		enum := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
		for _, v := range d.values {
			enum.Content = append(enum.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v})
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "enum"}, enum)
	}
	return nil
}

// setServers replaces the servers of the object m with the one url, when m
// has servers.
func setServers(m *yaml.Node, url string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != "servers" {
			continue
		}
		m.Content[i+1] = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{{
			Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
				{Kind: yaml.ScalarNode, Tag: "!!str", Value: "url"},
				{Kind: yaml.ScalarNode, Tag: "!!str", Value: url},
				{Kind: yaml.ScalarNode, Tag: "!!str", Value: "description"},
				{Kind: yaml.ScalarNode, Tag: "!!str", Value: "This sandbox"},
			},
		}}}
		return
	}
}

// openAPI serves GET {base}/openapi.{yaml|json}: the OpenAPI document with
// this sandbox's public URL as server. The document is converted once,
// when it is first asked for: a server that is never asked does not pay
// for it (its YAML is some 125 KB).
func (s *Server) openAPI() http.Handler {
	document := sync.OnceValues(func() (apiDocument, error) {
		doc, err := newAPIDocument(openAPISource, s.cfg.PublicURL, s.cfg.BasePath)
		if err != nil {
			s.log.Error("openapi document", slog.Any("err", err))
		}
		return doc, err
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		doc, err := document()
		if err != nil {
			s.writeError(w, r, fmt.Errorf("openapi document: %w", err))
			return
		}
		body, ctype := doc.json, "application/json"
		if mux.Vars(r)["format"] == "yaml" {
			body, ctype = doc.yaml, "application/yaml"
		}
		h := w.Header()
		h.Set("Content-Type", ctype)
		h.Set("Cache-Control", "public, max-age=300")
		// Tools such as Swagger UI fetch the document from another origin.
		h.Set("Access-Control-Allow-Origin", "*")
		_, _ = w.Write(body)
	})
}
