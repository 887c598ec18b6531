package scenarios

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// completeSchema completes the schema src with the challenge styles: the
// challenge's ui property (every style's value and what it does) and each
// style's own keys (Style.Schema), after its properties in the order of
// styles (in place, should src have one). A key two styles share has the
// first one's schema. The conditions of when come from conditions.
func completeSchema(src []byte, styles []Style) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("read schema.json: %w", err)
	}
	props := nodePath(&doc, "$defs", "challenge", "properties")
	if props == nil {
		return nil, errors.New("schema.json has no $defs/challenge/properties")
	}
	names, docs := make([]string, 0, len(styles)), make([]string, 0, len(styles))
	for _, st := range styles {
		names = append(names, st.UI)
		docs = append(docs, fmt.Sprintf("%s, %s (authenticationType %s by default)", st.UI, st.Doc, st.AuthenticationType))
	}
	ui := map[string]any{
		"description": "The challenge style: " + strings.Join(docs, "; ") + ".",
		"enum":        names,
		"default":     styles[0].UI,
	}
	var uiKey, uiVal yaml.Node
	uiKey.SetString("ui")
	if err := uiVal.Encode(ui); err != nil {
		return nil, fmt.Errorf("schema of ui: %w", err)
	}
	setProperty(props, &uiKey, &uiVal)
	shared := map[string]bool{}
	for _, st := range styles {
		var keys yaml.Node
		if err := yaml.Unmarshal([]byte(st.Schema), &keys); err != nil {
			return nil, fmt.Errorf("ui %s: schema of its keys: %w", st.UI, err)
		}
		m := nodePath(&keys)
		if m == nil || len(m.Content) != 2*len(st.Keys) {
			return nil, fmt.Errorf("ui %s: the schema of its keys must be an object of its %d keys", st.UI, len(st.Keys))
		}
		for i := 0; i < len(m.Content); i += 2 {
			k := m.Content[i].Value
			if k != st.Keys[i/2] {
				return nil, fmt.Errorf("ui %s: schema of key %q where its key %q is", st.UI, k, st.Keys[i/2])
			}
			if !shared[k] {
				setProperty(props, m.Content[i], m.Content[i+1])
				shared[k] = true
			}
		}
	}
	if err := withConditions(&doc); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := WriteNodeJSON(&buf, doc.Content[0]); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, buf.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("indent schema: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// withConditions sets the properties of $defs/when in doc: each
// condition one of its values or a list of them.
func withConditions(doc *yaml.Node) error {
	props := nodePath(doc, "$defs", "when", "properties")
	if props == nil {
		return errors.New("schema.json has no $defs/when/properties")
	}
	for _, c := range conditions {
		one := map[string]any{"enum": c.Values}
		schema := map[string]any{"description": c.Doc, "oneOf": []any{
			one, map[string]any{"type": "array", "minItems": 1, "uniqueItems": true, "items": one}}}
		var key, val yaml.Node
		key.SetString(c.Key)
		if err := val.Encode(schema); err != nil {
			return fmt.Errorf("schema of when %s: %w", c.Key, err)
		}
		setProperty(props, &key, &val)
	}
	return nil
}

// nodePath follows keys down from the mapping n (or the document n
// holds); nil when one is missing.
func nodePath(n *yaml.Node, keys ...string) *yaml.Node {
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	for _, k := range keys {
		if n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
				break
			}
		}
		if next == nil {
			return nil
		}
		n = next
	}
	if n.Kind != yaml.MappingNode {
		return nil
	}
	return n
}

// setProperty sets the property key of the mapping props to the schema
// v: in place when props has it, else at the end.
func setProperty(props, key, v *yaml.Node) {
	for i := 0; i+1 < len(props.Content); i += 2 {
		if props.Content[i].Value == key.Value {
			props.Content[i+1] = v
			return
		}
	}
	props.Content = append(props.Content, key, v)
}

// WriteNodeJSON writes the YAML node n as compact JSON, keeping the order
// of mapping keys (encoding a decoded map would sort them): the schema
// here, and the OpenAPI document that web serves in both encodings.
func WriteNodeJSON(buf *bytes.Buffer, n *yaml.Node) error {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return fmt.Errorf("line %d: document with %d nodes", n.Line, len(n.Content))
		}
		return WriteNodeJSON(buf, n.Content[0])
	case yaml.AliasNode:
		return WriteNodeJSON(buf, n.Alias)
	case yaml.MappingNode:
		buf.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				buf.WriteByte(',')
			}
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.Value == "<<" {
				return fmt.Errorf("line %d: only plain keys are supported", k.Line)
			}
			if err := writeJSONValue(buf, k.Value); err != nil {
				return err
			}
			buf.WriteByte(':')
			if err := WriteNodeJSON(buf, n.Content[i+1]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := WriteNodeJSON(buf, c); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case yaml.ScalarNode:
		var v any = n.Value
		switch n.ShortTag() {
		case "!!null", "!!bool", "!!int", "!!float":
			if err := n.Decode(&v); err != nil {
				return fmt.Errorf("line %d: %w", n.Line, err)
			}
		}
		return writeJSONValue(buf, v)
	default:
		return fmt.Errorf("line %d: unsupported YAML node kind %d", n.Line, n.Kind)
	}
	return nil
}

// writeJSONValue writes one JSON value without escaping HTML characters.
func writeJSONValue(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode %v: %w", v, err)
	}
	buf.Truncate(buf.Len() - 1) // Encode's newline
	return nil
}
